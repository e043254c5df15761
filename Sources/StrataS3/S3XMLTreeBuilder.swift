import Foundation

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The parser delegate that builds an ``S3XMLElement`` tree. Used by one parse on one thread.
final class S3XMLTreeBuilder: NSObject, XMLParserDelegate {
    private var stack: [S3XMLElement] = []
    private(set) var root: S3XMLElement?

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        stack.append(S3XMLElement(name: elementName))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += string
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
    ) {
        guard let element = stack.popLast() else { return }
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }
}
