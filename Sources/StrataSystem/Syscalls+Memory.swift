#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension Sys {
    /// `mmap(2)` of `length` bytes of `fd` from offset 0, readable and writable, shared with every process that
    /// maps the same file.
    package static func mapShared(_ fd: FileDescriptor, length: Int, path: String? = nil) throws(Errno)
        -> UnsafeMutableRawPointer
    {
        #if STRATA_FAULT_INJECTION
            if FaultInjector.isArmed, case .error(let code)? = FaultInjector.shared.fault(for: .map, path: path) {
                throw Errno(code)
            }
        #endif
        guard let address = system_mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd.rawValue, 0),
            address != MAP_FAILED
        else { throw Errno.current }
        return address
    }

    /// `mmap(2)` of `length` bytes of fresh memory, readable and writable, private to this process and backed by no
    /// file: the kernel hands each page over (zeroed) when it is first touched, and ``unmap(_:length:)`` gives them
    /// all back at once, whatever the allocator's arenas and thresholds would do with a `malloc` of that size.
    package static func mapAnonymous(length: Int) throws(Errno) -> UnsafeMutableRawPointer {
        #if STRATA_FAULT_INJECTION
            if FaultInjector.isArmed, case .error(let code)? = FaultInjector.shared.fault(for: .map, path: nil) {
                throw Errno(code)
            }
        #endif
        guard let address = system_mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            address != MAP_FAILED
        else { throw Errno.current }
        return address
    }

    /// `munmap(2)`.
    package static func unmap(_ address: UnsafeMutableRawPointer, length: Int) {
        _ = system_munmap(address, length)
    }
}

private func system_mmap(
    _ address: UnsafeMutableRawPointer?, _ length: Int, _ protection: Int32, _ flags: Int32, _ fd: Int32,
    _ offset: off_t
) -> UnsafeMutableRawPointer? {
    mmap(address, length, protection, flags, fd, offset)
}
private func system_munmap(_ address: UnsafeMutableRawPointer, _ length: Int) -> Int32 { munmap(address, length) }
