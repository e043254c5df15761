/// A declared option of any type (``Option``, ``Flag``): what a ``CommandConfiguration`` lists.
protocol OptionDeclaration: Sendable {
    var spec: OptionSpec { get }
}
