/// A declared positional argument of any type (``Argument``): what a ``CommandConfiguration`` lists.
protocol ArgumentDeclaration: Sendable {
    var spec: ArgumentSpec { get }
}
