import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// One element of an S3 XML answer: its name, its text and its children. S3 answers are small, flat documents
/// (an error, a listing, an upload id), so the whole tree is built at once.
struct S3XMLElement: Sendable {
    var name: String
    var text = ""
    var children: [S3XMLElement] = []

    /// Parses a document (external entities are never resolved); nil when it is not well-formed XML, or nests
    /// deeper than ``S3XMLTreeBuilder/maximumDepth``.
    static func parse(_ bytes: [UInt8]) -> S3XMLElement? {
        let parser = XMLParser(data: Data(bytes))
        parser.shouldResolveExternalEntities = false
        let builder = S3XMLTreeBuilder()
        parser.delegate = builder
        guard parser.parse(), !builder.isTooDeep else { return nil }
        return builder.root
    }

    /// The first child named `name`.
    func child(_ name: String) -> S3XMLElement? { children.first { $0.name == name } }

    /// Every child named `name`.
    func all(_ name: String) -> [S3XMLElement] { children.filter { $0.name == name } }

    /// The text of the first child named `name`.
    func text(_ name: String) -> String? { child(name)?.text }
}
