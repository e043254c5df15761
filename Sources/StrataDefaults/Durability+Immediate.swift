public import StrataCore

extension StrataCore.Durability {
    /// Every set is written durably before it returns: ``durable``.
    @available(*, deprecated, renamed: "durable")
    public static var immediate: Self { .durable }
}
