/// An option without a value (`--long`), declared once and read as a `Bool`.
struct Flag: OptionDeclaration {
    let spec: OptionSpec

    init(_ name: String, _ help: String) {
        spec = OptionSpec(name: name, valueName: nil, help: help)
    }
}
