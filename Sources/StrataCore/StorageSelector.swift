/// Picks the storage tier for a value from its kind, size and sensitivity, following the decision table
/// (the README's "The decision table"; `strata select --table` prints it).
///
/// The table is held as ordered ``SelectionRule``s; the first rule that matches decides.
///
/// ```swift
/// let selector = StorageSelector()
/// let selection = selector.select(DataDescriptor(kind: .credential, estimatedSize: 40))
/// print(selection.tier)          // secrets
/// print(selection.ruleID)        // sensitive-to-secrets
/// print(selection.appleEquivalent) // Keychain
/// ```
public struct StorageSelector: Sendable {
    /// The thresholds and deployment context in force.
    public var configuration: SelectorConfiguration
    /// The rules, tried in order. The default is ``SelectionRule/standard``.
    public var rules: [SelectionRule]

    /// Creates a selector.
    /// - Parameters:
    ///   - configuration: Thresholds and context. The default is ``SelectorConfiguration/init(defaults:smallStructuredLimit:secretSizeLimit:context:)``.
    ///   - rules: The ordered rules. When none of them matches, the standard table decides.
    public init(
        configuration: SelectorConfiguration = SelectorConfiguration(),
        rules: [SelectionRule] = SelectionRule.standard
    ) {
        self.configuration = configuration
        self.rules = rules
    }

    /// Chooses the tier for a value.
    /// - Parameter descriptor: What is known about the value.
    /// - Returns: The tier, the rule that fired, the reason and the Apple equivalent. A selector knows no backend:
    ///   the backend's facts (``Selection/concurrencyGuarantee``, ``Selection/durability``) are filled in by
    ///   `Storage.select`, from the tier's active backend.
    public func select(_ descriptor: DataDescriptor) -> Selection {
        // By index: a rule is asked in place, not copied out of the array (every put selects).
        for index in 0..<rules.count where rules[index].matches(descriptor, configuration) {
            return selection(by: rules[index], for: descriptor)
        }
        let standard = SelectionRule.standard
        for index in 0..<standard.count where standard[index].matches(descriptor, configuration) {
            return selection(by: standard[index], for: descriptor)
        }
        fatalError("the standard table has a rule for every descriptor")
    }

    /// The selection a rule makes for a descriptor, whether or not the rule matches it: how `Storage` applies
    /// ``SelectionRule/suiteFull`` when the defaults suite has no room.
    public func selection(by rule: SelectionRule, for descriptor: DataDescriptor) -> Selection {
        let reason = rule.reason
        return Selection(
            tier: rule.tier, ruleID: rule.id, appleEquivalent: rule.appleEquivalent(configuration.context),
            descriptor: descriptor, explanation: { [configuration] in reason(descriptor, configuration) })
    }

    /// The rule with an id, if the selector has one.
    public func rule(withID id: String) -> SelectionRule? {
        rules.first { $0.id == id }
    }
}
