// Fuzz targets for the parsers Strata owns. Built two ways:
//
//   Scripts/fuzz.sh TARGET [seconds]     libFuzzer (-sanitize=fuzzer,address, -DFUZZING), corpus in Fuzz/TARGET
//   strata-fuzz TARGET FILE...           a normal build replays files (the committed seed corpus, or crashes)
//
// Targets: archive (zip and gzip readers), sealed-item (keyring parser and item envelope), json-lines (the
// import's parsing and decoding), record-body (typed decoding of a record body, differential against Foundation's
// JSONDecoder), path-mapping (key validation and mapping), plist (suite files, raw or generated
// with shared references and twin keys when the first byte is 0xFF), backup-metadata (a backup repository's
// snapshot and index files, once opened), store-configuration (`strata.conf`: refused typed, or read, written back
// and read again alike).
#if DEBUG || FUZZING
    import Foundation
    import StrataBackup
    import StrataCore
    import StrataDefaults
    import StrataFiles
    import StrataRecords
    import StrataSecrets

    enum FuzzTarget: String, CaseIterable {
        case archive = "archive"
        case sealedItem = "sealed-item"
        case jsonLines = "json-lines"
        case recordBody = "record-body"
        case pathMapping = "path-mapping"
        case plist = "plist"
        case backupMetadata = "backup-metadata"
        case storeConfiguration = "store-configuration"

        static let scratch = "/tmp/strata-fuzz-\(getpid())"

        func run(_ data: Data) {
            switch self {
            case .archive:
                // The first byte picks the reader: raw gzip, structured zip ('Z': the rest chooses the fields of a
                // valid skeleton), structured gzip ('G'), or raw zip.
                switch data.first {
                case 0x1F: FilesFuzzing.gzip(data)
                case UInt8(ascii: "Z"): FilesFuzzing.structuredZip(data.dropFirst(), scratch: Self.scratch + ".zip")
                case UInt8(ascii: "G"): FilesFuzzing.structuredGzip(data.dropFirst())
                default: FilesFuzzing.zip(data, scratch: Self.scratch + ".zip")
                }
            case .sealedItem:
                SecretsFuzzing.keyring(data)
                SecretsFuzzing.item(data)
                SecretsFuzzing.roundTrip(data)
            case .jsonLines:
                RecordsFuzzing.jsonLines(data)
            case .recordBody:
                RecordsFuzzing.recordBody(data)
            case .pathMapping:
                let key = String(decoding: data, as: UTF8.self)
                if (try? StoragePaths.validateKey(key)) != nil {
                    let parts = key.unicodeScalars.split(separator: "/", omittingEmptySubsequences: false).map {
                        String(String.UnicodeScalarView($0))
                    }
                    guard !parts.contains(where: { $0 == ".." || $0 == "." || $0.isEmpty }), !key.contains("\0")
                    else { fatalError("a hostile key was accepted: \(key.debugDescription)") }
                }
                if let paths = try? StoragePaths(root: Self.scratch + "-root"),
                    let path = try? paths.path(for: key, in: .files)
                {
                    // Compared as bytes: a combining mark after '/' would fool a Character comparison.
                    guard path.utf8.starts(with: (paths.root + "/files/").utf8) else {
                        fatalError("a key mapped outside the store: \(path)")
                    }
                }
            case .plist:
                DefaultsFuzzing.plist(data)
            case .backupMetadata:
                BackupFuzzing.metadata(data)
            case .storeConfiguration:
                CoreFuzzing.storeConfiguration(data)
            }
        }
    }

    #if FUZZING
        internal import CStrataSystem

        let selected: FuzzTarget = {
            guard let name = ProcessInfo.processInfo.environment["STRATA_FUZZ_TARGET"],
                let target = FuzzTarget(rawValue: name)
            else {
                FileHandle.standardError.write(
                    Data("set STRATA_FUZZ_TARGET to one of \(FuzzTarget.allCases.map(\.rawValue))\n".utf8))
                exit(2)
            }
            return target
        }()

        /// SwiftPM links an executable's entry point as `<target>_main`; hand the process to libFuzzer's driver.
        @_cdecl("strata_fuzz_main")
        public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
            var count = argc
            var arguments = argv
            return LLVMFuzzerRunDriver(&count, &arguments) { bytes, size in
                selected.run(bytes.map { Data(bytes: $0, count: size) } ?? Data())
                return 0
            }
        }
    #else
        @main
        enum Replay {
            static func main() {
                let arguments = Array(CommandLine.arguments.dropFirst())
                guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
                    print(
                        "usage: strata-fuzz TARGET FILE|FOLDER...   (targets: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")))"
                    )
                    exit(2)
                }
                var count = 0
                for path in arguments.dropFirst() {
                    var isFolder: ObjCBool = false
                    guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { continue }
                    let files =
                        isFolder.boolValue
                        ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map {
                            path + "/" + $0
                        } : [path]
                    for file in files {
                        guard let data = FileManager.default.contents(atPath: file) else { continue }
                        target.run(data)
                        count += 1
                    }
                }
                print("\(target.rawValue): replayed \(count) input(s) without a crash")
            }
        }
    #endif
#else
    // A release build without Scripts/fuzz.sh's -enable-testing cannot reach the parsers' internals: `swift build
    // -c release` of the whole package still succeeds, and this says how to build the real tool.
    import Foundation

    @main
    enum ReleaseBuild {
        static func main() {
            FileHandle.standardError.write(
                Data("strata-fuzz: build it in debug (swift build) or for libFuzzer with Scripts/fuzz.sh\n".utf8))
            exit(2)
        }
    }
#endif
