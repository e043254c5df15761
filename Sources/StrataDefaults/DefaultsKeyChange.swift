public import StrataCore

/// One change of a typed key, as ``DefaultsStore/observe(_:options:_:)`` delivers it.
public struct DefaultsKeyChange<Value: Sendable>: Sendable {
    /// The value before the change; `nil` for the initial delivery (``DefaultsObservationOptions/initial``).
    public var oldValue: Value?
    /// The value now: set, else registered, else the key's default. When the value moved out of the suite
    /// (``movedTo``), this is what the suite reads now, not the value, which lives on in the other tier.
    public var newValue: Value
    /// The tier of the store the value moved to, when the change took it out of this suite into another tier (a
    /// `Storage` put or move): the key was not removed, and `Storage.observe(_:)` follows it there. `nil` for any
    /// other change.
    public var movedTo: Tier?
    /// Why `newValue` is the key's default although the suite holds a value: the stored value is not a `Value` (a
    /// `.typeMismatch` naming both types, as ``DefaultsStore/typeMismatch(for:)`` gives it). `nil` when the value read
    /// as `Value`, or there is none.
    public var typeMismatch: StorageError?

    /// A change from `oldValue` to `newValue` (to another tier, with `movedTo`; read as the default because of
    /// `typeMismatch`).
    public init(oldValue: Value?, newValue: Value, movedTo: Tier? = nil, typeMismatch: StorageError? = nil) {
        self.oldValue = oldValue
        self.newValue = newValue
        self.movedTo = movedTo
        self.typeMismatch = typeMismatch
    }
}

extension DefaultsKeyChange: Equatable where Value: Equatable {}
extension DefaultsKeyChange: Hashable where Value: Hashable {}
