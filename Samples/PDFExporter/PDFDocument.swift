import Foundation

/// A small PDF 1.7 writer: pages of text in the standard Helvetica fonts, ruled tables, and filled and
/// stroked paths for charts. Enough for a real report that pdfinfo, pdftoppm and qpdf accept.
struct PDFDocument {
    /// One page's drawing, in PDF points (1/72 inch) from the bottom-left corner.
    struct Page {
        var width: Double = 612
        var height: Double = 792
        fileprivate var operations: [String] = []

        mutating func text(_ string: String, x: Double, y: Double, size: Double = 11, bold: Bool = false) {
            operations.append(
                "BT /\(bold ? "F2" : "F1") \(format(size)) Tf \(format(x)) \(format(y)) Td (\(PDFDocument.escape(string))) Tj ET"
            )
        }

        mutating func fill(red: Double, green: Double, blue: Double) {
            operations.append("\(format(red)) \(format(green)) \(format(blue)) rg")
        }

        mutating func stroke(red: Double, green: Double, blue: Double, width: Double = 1) {
            operations.append("\(format(red)) \(format(green)) \(format(blue)) RG \(format(width)) w")
        }

        mutating func rectangle(x: Double, y: Double, width: Double, height: Double, filled: Bool) {
            operations.append("\(format(x)) \(format(y)) \(format(width)) \(format(height)) re \(filled ? "f" : "S")")
        }

        mutating func line(from start: (Double, Double), to end: (Double, Double)) {
            operations.append("\(format(start.0)) \(format(start.1)) m \(format(end.0)) \(format(end.1)) l S")
        }

        /// A table with a bold header row and ruled cells.
        mutating func table(_ rows: [[String]], x: Double, top: Double, columnWidths: [Double], rowHeight: Double = 18)
        {
            stroke(red: 0.6, green: 0.6, blue: 0.6, width: 0.5)
            for (index, row) in rows.enumerated() {
                let y = top - Double(index + 1) * rowHeight
                var cellX = x
                for (column, cell) in row.enumerated() {
                    rectangle(x: cellX, y: y, width: columnWidths[column], height: rowHeight, filled: false)
                    text(cell, x: cellX + 4, y: y + 5, size: 10, bold: index == 0)
                    cellX += columnWidths[column]
                }
            }
        }

        private func format(_ value: Double) -> String { String(format: "%.2f", value) }
    }

    var title: String
    var pages: [Page] = []

    static func escape(_ string: String) -> String {
        var out = ""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "(", ")", "\\": out += "\\" + String(scalar)
            default: out += scalar.isASCII && scalar.value >= 0x20 ? String(scalar) : "?"
            }
        }
        return out
    }

    /// The file: header, objects, cross-reference table with exact offsets, trailer.
    func data() -> Data {
        var objects: [String] = []
        // 1 catalog, 2 page tree, 3 font regular, 4 font bold, 5 info; then each page and its content.
        let pageIDs = pages.indices.map { 6 + $0 * 2 }
        objects.append("<< /Type /Catalog /Pages 2 0 R >>")
        objects.append(
            "<< /Type /Pages /Kids [\(pageIDs.map { "\($0) 0 R" }.joined(separator: " "))] /Count \(pages.count) >>")
        objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
        objects.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>")
        objects.append("<< /Title (\(Self.escape(title))) /Producer (Strata PDFExporter) >>")
        for (index, page) in pages.enumerated() {
            objects.append(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 \(Int(page.width)) \(Int(page.height))] "
                    + "/Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents \(pageIDs[index] + 1) 0 R >>")
            let stream = page.operations.joined(separator: "\n")
            objects.append("<< /Length \(stream.utf8.count) >>\nstream\n\(stream)\nendstream")
        }
        var out = "%PDF-1.7\n%\u{E2}\u{E3}\u{CF}\u{D3}\n"
        var bytes = Data(out.utf8)
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(bytes.count)
            bytes.append(Data("\(index + 1) 0 obj\n\(object)\nendobj\n".utf8))
        }
        let xref = bytes.count
        out = "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { out += String(format: "%010d 00000 n \n", offset) }
        out += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R /Info 5 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        bytes.append(Data(out.utf8))
        return bytes
    }
}
