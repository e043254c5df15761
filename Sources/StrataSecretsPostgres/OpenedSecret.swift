import StrataSecrets

/// An item opened from its row: its attributes, its class, and its value when asked for.
struct OpenedSecret: Sendable {
    var record: ItemEnvelope.Record
    var accessibility: SecretAccessibility
    var secret: Secret?
}
