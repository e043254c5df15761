#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Which thread is running: what a lock records of its holder, so that the same thread can tell it holds it already.
extension Sys {
    /// An identifier of the calling thread, unique among the process's live threads and never 0 (`pthread_self`).
    package static var currentThread: UInt {
        #if canImport(Darwin)
            UInt(bitPattern: pthread_self())
        #else
            UInt(pthread_self())
        #endif
    }
}
