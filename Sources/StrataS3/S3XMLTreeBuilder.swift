import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The parser delegate that builds an ``S3XMLElement`` tree. Used by one parse on one thread.
///
/// The tree is built with a stack of the open elements, and no deeper than ``maximumDepth``: S3 answers nest four
/// levels at most (`ListVersionsResult` › `Version` › `Owner` › `ID`), and a tree is released by recursion, one
/// level at a time, so an answer nested thousands deep (which Foundation's parser reads) would overflow the stack.
final class S3XMLTreeBuilder: NSObject, XMLParserDelegate {
    /// The deepest nesting read: an answer deeper is refused as malformed.
    static let maximumDepth = 32

    private var stack: [S3XMLElement] = []
    private(set) var root: S3XMLElement?
    /// Whether the answer nested deeper than ``maximumDepth`` (the parse was stopped there).
    private(set) var isTooDeep = false

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        guard stack.count < Self.maximumDepth else {
            isTooDeep = true
            return parser.abortParsing()
        }
        stack.append(S3XMLElement(name: elementName))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty, !isTooDeep else { return }
        stack[stack.count - 1].text += string
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
    ) {
        guard !isTooDeep, let element = stack.popLast() else { return }
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }
}
