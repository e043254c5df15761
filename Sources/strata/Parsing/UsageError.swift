/// A mistake in how the tool was called: printed with a pointer to `--help`, exit code 2.
struct UsageError: Error, CustomStringConvertible {
    var description: String
    /// The command the message already names (`files ls`), or `nil`: the tool then puts the verb it was
    /// running in front of the message.
    var command: String?
    init(_ description: String, command: String? = nil) {
        self.description = description
        self.command = command
    }
}
