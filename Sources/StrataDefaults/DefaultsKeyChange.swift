/// One change of a typed key, as ``DefaultsStore/observe(_:options:_:)`` delivers it.
public struct DefaultsKeyChange<Value: Sendable>: Sendable {
    /// The value before the change; `nil` for the initial delivery (``DefaultsObservationOptions/initial``).
    public var oldValue: Value?
    /// The value now: set, else registered, else the key's default.
    public var newValue: Value

    /// A change from `oldValue` to `newValue`.
    public init(oldValue: Value?, newValue: Value) {
        self.oldValue = oldValue
        self.newValue = newValue
    }
}

extension DefaultsKeyChange: Equatable where Value: Equatable {}
extension DefaultsKeyChange: Hashable where Value: Hashable {}
