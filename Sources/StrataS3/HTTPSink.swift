/// Where a response's body goes: memory (for XML answers) or an open file, written with `pwrite` from `offset`.
///
/// An error answer (a status outside 2xx) always goes to memory, so the file never receives an error document.
enum HTTPSink: Sendable {
    case memory
    case descriptor(Int32, offset: Int64)
}
