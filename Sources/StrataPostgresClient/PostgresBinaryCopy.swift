/// PostgreSQL's binary `COPY` format (`COPY … FROM STDIN (FORMAT binary)`): a header, then each row as its field
/// count and each field as its length and its bytes (nothing to escape, and the server parses no literal), then a
/// trailer. Integers are big-endian.
package enum PostgresBinaryCopy {
    /// The signature, no flags, no header extension.
    package static let header: [UInt8] =
        Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00] + [0, 0, 0, 0] + [0, 0, 0, 0]
    /// A field count of -1: the end of the data.
    package static let trailer: [UInt8] = [0xFF, 0xFF]

    /// Appends the start of a row of `fields` fields.
    package static func appendRow(fields: Int, to bytes: inout [UInt8]) {
        appendInteger(UInt16(fields), to: &bytes)
    }

    /// Appends a field: its length, then its bytes.
    package static func appendField(_ value: some Collection<UInt8>, to bytes: inout [UInt8]) {
        appendInteger(UInt32(value.count), to: &bytes)
        bytes.append(contentsOf: value)
    }

    /// Appends a `jsonb` field: its binary form is a version byte, 1, then the JSON text.
    package static func appendJSONB(_ text: UnsafeRawBufferPointer, to bytes: inout [UInt8]) {
        appendInteger(UInt32(text.count + 1), to: &bytes)
        bytes.append(1)
        bytes.append(contentsOf: text)
    }

    /// Appends a `float8` field.
    package static func appendDouble(_ value: Double, to bytes: inout [UInt8]) {
        appendInteger(UInt32(8), to: &bytes)
        appendInteger(value.bitPattern, to: &bytes)
    }

    package static func appendInteger(_ value: some FixedWidthInteger, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }
}
