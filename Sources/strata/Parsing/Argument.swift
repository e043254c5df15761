/// A positional argument, declared once and read as `Value` when the command is parsed: `Argument<String>` for
/// `KEY`, `Argument<String?>` for `[PREFIX]`, `Argument<[String]>` for `PATH...`.
struct Argument<Value: Sendable>: ArgumentDeclaration {
    let spec: ArgumentSpec
    /// Reads the words the parser gave the argument (as many as its arity allows).
    let read: @Sendable ([String]) throws -> Value

    /// An argument given exactly once.
    init(
        _ name: String, _ help: String, completion: CompletionKind = .none, isFreeForm: Bool = false,
        read: @escaping @Sendable (String) throws -> Value
    ) {
        spec = ArgumentSpec(name: name, help: help, arity: .one, completion: completion, isFreeForm: isFreeForm)
        self.read = { try read($0[0]) }
    }
}

extension Argument where Value == String {
    /// An argument given exactly once, its text as given.
    init(_ name: String, _ help: String, completion: CompletionKind = .none, isFreeForm: Bool = false) {
        self.init(name, help, completion: completion, isFreeForm: isFreeForm) { $0 }
    }
}

extension Argument where Value == String? {
    /// An argument that may be left out (the last one).
    init(optional name: String, _ help: String, completion: CompletionKind = .none) {
        spec = ArgumentSpec(name: name, help: help, arity: .optional, completion: completion)
        read = { $0.first }
    }
}

extension Argument where Value == [String] {
    /// An argument given any number of times (the last one), or at least once with `atLeastOne`.
    init(list name: String, _ help: String, atLeastOne: Bool = false, completion: CompletionKind = .none) {
        spec = ArgumentSpec(name: name, help: help, arity: .list(atLeastOne: atLeastOne), completion: completion)
        read = { $0 }
    }
}
