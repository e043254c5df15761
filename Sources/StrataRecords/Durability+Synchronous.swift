public import StrataCore

extension Durability {
    /// SQLite's `synchronous=FULL`: ``durable``.
    @available(*, deprecated, renamed: "durable")
    public static var full: Self { .durable }
    /// SQLite's `synchronous=NORMAL`: ``atomicOnly``.
    @available(*, deprecated, renamed: "atomicOnly")
    public static var normal: Self { .atomicOnly }
}
