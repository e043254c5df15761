/// What a typed key observation delivers besides each change (see ``DefaultsStore/observe(_:options:_:)``).
public struct DefaultsObservationOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Deliver the key's current value once, at once, before any change (its `oldValue` is `nil`).
    public static let initial = DefaultsObservationOptions(rawValue: 1 << 0)
}
