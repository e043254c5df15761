/// One named rule of the decision table: when it applies, which tier it picks, and why.
///
/// The rules are data: ``StorageSelector`` tries them in order and the first that matches decides, and the
/// same list is what `strata select --table` prints.
public struct SelectionRule: Sendable, Identifiable {
    /// A stable id, such as `sensitive-to-secrets`, used in tests, logs and the CLI.
    public let id: String
    /// When the rule applies, in words, for the printed table.
    public let condition: String
    /// The tier it picks.
    public let tier: Tier
    /// The Apple API the choice corresponds to, given the deployment context.
    public let appleEquivalent: @Sendable (DeploymentContext) -> String
    /// Whether the rule applies to a descriptor under a configuration.
    public let matches: @Sendable (DataDescriptor, SelectorConfiguration) -> Bool
    /// The sentence that explains the choice for one descriptor.
    public let reason: @Sendable (DataDescriptor, SelectorConfiguration) -> String

    /// Creates a rule.
    public init(
        id: String,
        condition: String,
        tier: Tier,
        appleEquivalent: @escaping @Sendable (DeploymentContext) -> String,
        matches: @escaping @Sendable (DataDescriptor, SelectorConfiguration) -> Bool,
        reason: @escaping @Sendable (DataDescriptor, SelectorConfiguration) -> String
    ) {
        self.id = id
        self.condition = condition
        self.tier = tier
        self.appleEquivalent = appleEquivalent
        self.matches = matches
        self.reason = reason
    }
}

extension SelectionRule {
    /// The decision table as ordered rules. Every descriptor matches one of them.
    public static let standard: [SelectionRule] = [
        SelectionRule(
            id: "sensitive-to-secrets",
            condition: "credential, or marked sensitive, any size",
            tier: .secrets,
            appleEquivalent: { _ in "Keychain" },
            matches: { descriptor, _ in descriptor.kind == .credential || descriptor.isSensitive },
            reason: { descriptor, configuration in
                var text =
                    "sensitive data (tokens, passwords, keys) must be stored encrypted in secrets "
                    + "and is forbidden in defaults"
                if descriptor.estimatedSize > configuration.secretSizeLimit {
                    text +=
                        "; at \(ByteCount(descriptor.estimatedSize)) it is larger than the "
                        + "\(ByteCount(configuration.secretSizeLimit)) a keychain item is meant to be, but it "
                        + "is still sealed there, never written in the clear"
                }
                return text
            }
        ),
        SelectionRule(
            id: "file-to-files",
            condition: "file-like: kind file, or a document, image, audio, video or archive content type",
            tier: .files,
            appleEquivalent: { _ in "FileManager" },
            matches: { descriptor, _ in descriptor.kind == .file || descriptor.hasFileLikeContentType },
            reason: { descriptor, _ in
                let what = descriptor.contentType.map { "\($0) content" } ?? "file-like data"
                return "\(what) (exported PDFs, recordings, images) belongs in the file store, whatever its size"
            }
        ),
        SelectionRule(
            id: "large-preference-to-files",
            condition: "preference over the defaults value limit",
            tier: .files,
            appleEquivalent: { _ in "FileManager" },
            matches: { descriptor, configuration in
                descriptor.kind == .preference && descriptor.estimatedSize > configuration.defaults.valueLimit
            },
            reason: { descriptor, configuration in
                "a preference of \(ByteCount(descriptor.estimatedSize)) is over the "
                    + "\(ByteCount(configuration.defaults.valueLimit)) a defaults value may take; large values slow "
                    + "every launch, so it goes to files"
            }
        ),
        SelectionRule(
            id: "preference-to-defaults",
            condition: "preference within the defaults value limit",
            tier: .defaults,
            appleEquivalent: { _ in "UserDefaults" },
            matches: { descriptor, _ in descriptor.kind == .preference },
            reason: { descriptor, configuration in
                "a light preference of \(ByteCount(descriptor.estimatedSize)), within the "
                    + "\(ByteCount(configuration.defaults.valueLimit)) a defaults value may take"
            }
        ),
        SelectionRule(
            id: "flat-structured-to-defaults",
            condition: "structured but flat, not queried, and small",
            tier: .defaults,
            appleEquivalent: { _ in "UserDefaults" },
            matches: { descriptor, configuration in
                descriptor.kind == .structured && descriptor.isFlat && !descriptor.isQueried
                    && descriptor.estimatedSize <= configuration.flatStructuredLimit
            },
            reason: { descriptor, configuration in
                "flat, unqueried data of \(ByteCount(descriptor.estimatedSize)) (at most "
                    + "\(ByteCount(configuration.flatStructuredLimit))) is a preference: don't bring CoreData "
                    + "where UserDefaults will do"
            }
        ),
        SelectionRule(
            id: "structured-to-records-swiftdata",
            condition: "structured or relational, minimum OS with SwiftData (iOS 17+, macOS 14+)",
            tier: .records,
            appleEquivalent: { _ in "SwiftData" },
            matches: { descriptor, configuration in
                (descriptor.kind == .structured || descriptor.kind == .relational)
                    && configuration.context.supportsSwiftData
            },
            reason: { descriptor, configuration in
                let os = configuration.context.minimumOS.map { "\($0)" } ?? "the minimum OS"
                return "\(descriptor.kind) data goes to the record store; with \(os) as the minimum, the "
                    + "Apple equivalent is SwiftData"
            }
        ),
        SelectionRule(
            id: "structured-to-records-coredata",
            condition: "structured or relational, older or unknown minimum OS",
            tier: .records,
            appleEquivalent: { _ in "CoreData" },
            matches: { descriptor, _ in descriptor.kind == .structured || descriptor.kind == .relational },
            reason: { descriptor, configuration in
                let os =
                    configuration.context.minimumOS.map { "the minimum OS \($0) predates SwiftData" }
                    ?? "no minimum OS of iOS 17+ was given"
                return "\(descriptor.kind) data goes to the record store; \(os), so the Apple equivalent is "
                    + "CoreData"
            }
        ),
    ]

    /// The rule `Storage` applies instead of ``standard``'s choice of defaults when the defaults suite has no
    /// room left for the value: it goes to files, and moves back to defaults when it is put again and fits.
    /// The selector alone never picks it (it cannot see the suite); `strata select --table` lists it.
    public static let suiteFull = SelectionRule(
        id: "preference-to-files-suite-full",
        condition: "a value for defaults when the defaults suite has no room left for it (checked by Storage.put)",
        tier: .files,
        appleEquivalent: { _ in "FileManager" },
        matches: { _, _ in false },
        reason: { descriptor, configuration in
            "the defaults suite is full: a value of \(ByteCount(descriptor.estimatedSize)) does not fit in its "
                + "\(ByteCount(configuration.defaults.suiteBudget)) budget, so it goes to files (and back to "
                + "defaults when it is put again and fits)"
        }
    )
}
