/// An Apple platform and version, such as iOS 17 or macOS 14.
public struct PlatformVersion: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The Apple platforms the decision table knows.
    public enum Platform: String, Sendable, Hashable, Codable, CaseIterable {
        case iOS, macOS, tvOS, watchOS, visionOS

        /// The first major version that ships SwiftData.
        var swiftDataMajor: Int {
            switch self {
            case .iOS, .tvOS: return 17
            case .macOS: return 14
            case .watchOS: return 10
            case .visionOS: return 1
            }
        }
    }

    /// The platform.
    public var platform: Platform
    /// The major version (17 for iOS 17.2).
    public var major: Int
    /// The minor version (2 for iOS 17.2).
    public var minor: Int

    /// Creates a version.
    public init(_ platform: Platform, _ major: Int, _ minor: Int = 0) {
        self.platform = platform
        self.major = major
        self.minor = minor
    }

    /// Parses `iOS17`, `iOS 17`, `ios17.2` or `macOS14`; returns `nil` for anything else.
    public init?(parsing text: String) {
        let compact = text.filter { !$0.isWhitespace }
        guard
            let platform = Platform.allCases.sorted(by: { $0.rawValue.count > $1.rawValue.count })
                .first(where: { compact.lowercased().hasPrefix($0.rawValue.lowercased()) })
        else { return nil }
        let numbers = compact.dropFirst(platform.rawValue.count).split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(numbers.count), let major = Int(numbers[0]), major >= 0 else { return nil }
        var minor = 0
        if numbers.count == 2 {
            guard let value = Int(numbers[1]), value >= 0 else { return nil }
            minor = value
        }
        self.init(platform, major, minor)
    }

    /// Whether SwiftData exists on this version.
    public var supportsSwiftData: Bool { major >= platform.swiftDataMajor }

    public var description: String {
        minor == 0 ? "\(platform.rawValue) \(major)" : "\(platform.rawValue) \(major).\(minor)"
    }
}
