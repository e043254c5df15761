package import Foundation
package import StrataCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The file of one item: a short clear header, then two sealed boxes — the attributes, and the value.
///
/// ```
/// "STRATASI"  version (1)  accessibility (1)
/// attributes nonce (24)  attributes length (4)  sealed attributes (+16-byte tag)
/// value nonce (24)  sealed value (+16-byte tag)
/// ```
/// Both boxes are XChaCha20-Poly1305 under the key of the item's accessibility class. The attributes' associated
/// data binds the header, the keyring's id and the file's own name (a keyed hash of service and account); the
/// value's associated data adds the attributes' tag, so the two boxes cannot be mixed between files, and for
/// `...ThisDeviceOnly` items this machine's identity. A file copied onto another item's name, into another
/// keyring, edited or truncated, fails to open; a `...ThisDeviceOnly` value copied onto another machine does not
/// open there, while its attributes do, so that machine can list, report and delete it by service. Attributes
/// open without decrypting the value, so listings and replacements stay cheap for large secrets.
///
/// Version 2 is written for `...ThisDeviceOnly` items only (other items keep version 1, which every release
/// reads). Version 1 bound the machine into the attributes as well: such an item, on another machine, opens
/// nothing at all.
package enum ItemEnvelope {
    static let magic = Array("STRATASI".utf8)
    /// The newest format this code reads and writes.
    static let version: UInt8 = 2
    static let headerSize = 8 + 1 + 1

    package struct Record {
        package var service: String
        package var account: String
        package var label: String
        package var created: Date
        package var modified: Date
        package var valueSize: Int

        package init(
            service: String, account: String, label: String, created: Date, modified: Date, valueSize: Int
        ) {
            self.service = service
            self.account = account
            self.label = label
            self.created = created
            self.modified = modified
            self.valueSize = valueSize
        }

        /// The record as a reader decodes it from the sealed attributes: the dates rebuilt from the seconds
        /// since 1970 that are stored (a `Date` does not always survive that round trip bit for bit).
        package var readBack: Record {
            var record = self
            record.created = Date(timeIntervalSince1970: created.timeIntervalSince1970)
            record.modified = Date(timeIntervalSince1970: modified.timeIntervalSince1970)
            return record
        }
    }

    /// The format written for an accessibility class.
    static func version(for accessibility: SecretAccessibility) -> UInt8 { accessibility.isThisDeviceOnly ? 2 : 1 }

    /// The attributes' associated data, and the value's (before the attributes' tag is appended to it, and with
    /// the machine's identity after it for a version 2 `...ThisDeviceOnly` item).
    static func associatedData(
        version: UInt8, accessibility: SecretAccessibility, keyringID: [UInt8], fileName: String
    ) -> (attributes: [UInt8], deviceSuffix: [UInt8]) {
        // Room for the value's too (the attributes' tag and the machine's identity follow): one allocation.
        var data = [UInt8]()
        data.reserveCapacity(magic.count + 2 + keyringID.count + fileName.utf8.count + Sodium.tagBytes + 64)
        data += magic
        data.append(version)
        data.append(accessibility.code)
        data += keyringID
        data += fileName.utf8
        guard accessibility.isThisDeviceOnly else { return (data, []) }
        let device = [0] + DeviceIdentity.current
        if version == 1 {
            data += device
            return (data, [])
        }
        return (data, device)
    }

    /// Builds the sealed file, in the format ``version(for:)`` names unless `format` says otherwise (tests write
    /// the first format, to check it is still read).
    package static func seal(
        _ record: Record, value: UnsafeRawBufferPointer, accessibility: SecretAccessibility, keyringID: [UInt8],
        fileName: String, key: GuardedKey, format: UInt8? = nil
    ) throws -> Data {
        var attributes = [UInt8]()
        appendField(record.service, to: &attributes)
        appendField(record.account, to: &attributes)
        appendField(record.label, to: &attributes)
        appendUInt64(record.created.timeIntervalSince1970.bitPattern, to: &attributes)
        appendUInt64(record.modified.timeIntervalSince1970.bitPattern, to: &attributes)
        appendUInt64(UInt64(value.count), to: &attributes)
        let version = format ?? version(for: accessibility)
        let (associated, deviceSuffix) = associatedData(
            version: version, accessibility: accessibility, keyringID: keyringID, fileName: fileName)
        let sealedAttributesCount = attributes.count + Sodium.tagBytes
        let valueStart = headerSize + 2 * Sodium.nonceBytes + 4 + sealedAttributesCount
        let count = valueStart + value.count + Sodium.tagBytes
        // The file in one buffer, the value sealed straight into it: no intermediate copy of a large value. Not
        // zeroed first: every byte is written below.
        var file = Data(bytesNoCopy: malloc(count)!, count: count, deallocator: .free)
        try file.withUnsafeMutableBytes { (bytes: UnsafeMutableRawBufferPointer) in
            magic.withUnsafeBytes { bytes.copyMemory(from: $0) }
            bytes[8] = version
            bytes[9] = accessibility.code
            // Each nonce drawn straight into its place.
            let attributesNonce = UnsafeMutableRawBufferPointer(
                rebasing: bytes[headerSize..<(headerSize + Sodium.nonceBytes)])
            let valueNonce = UnsafeMutableRawBufferPointer(
                rebasing: bytes[(valueStart - Sodium.nonceBytes)..<valueStart])
            Sodium.randomFill(attributesNonce)
            Sodium.randomFill(valueNonce)
            var cursor = headerSize + Sodium.nonceBytes
            for shift in stride(from: 24, through: 0, by: -8) {
                bytes[cursor] = UInt8(truncatingIfNeeded: sealedAttributesCount >> shift)
                cursor += 1
            }
            let sealedAttributes = UnsafeMutableRawBufferPointer(
                rebasing: bytes[cursor..<(cursor + sealedAttributesCount)])
            try key.withBytes { key in
                attributes.withUnsafeBytes {
                    Sodium.seal(
                        $0, additionalData: associated, nonce: UnsafeRawBufferPointer(attributesNonce), key: key,
                        into: sealedAttributes)
                }
                var valueAssociated = associated  // Has room for the rest (see associatedData).
                valueAssociated += UnsafeRawBufferPointer(
                    rebasing: sealedAttributes[(sealedAttributesCount - Sodium.tagBytes)...])
                valueAssociated += deviceSuffix
                Sodium.seal(
                    value, additionalData: valueAssociated, nonce: UnsafeRawBufferPointer(valueNonce), key: key,
                    into: UnsafeMutableRawBufferPointer(rebasing: bytes[valueStart...]))
            }
        }
        return file
    }

    /// Reads the clear header: checks the format version and returns the accessibility class and the version.
    package static func header(of file: Data, path: @autoclosure () -> String) throws -> (
        accessibility: SecretAccessibility, version: UInt8
    ) {
        // One pass over the contiguous bytes: this runs on every read.
        let (isItem, version, code) = file.withUnsafeBytes { bytes -> (Bool, UInt8, UInt8) in
            guard bytes.count >= headerSize + 2 * (Sodium.nonceBytes + Sodium.tagBytes) + 4,
                magic.withUnsafeBytes({ memcmp($0.baseAddress!, bytes.baseAddress!, magic.count) == 0 })
            else { return (false, 0, 0) }
            return (true, bytes[8], bytes[9])
        }
        guard isItem else {
            throw StorageError(
                .corrupt, "the item file is truncated or not a Strata item (\(file.count) bytes)", tier: .secrets,
                path: path(), recovery: "Delete the item and store it again")
        }
        guard version <= Self.version else {
            throw StorageError(
                .unsupportedVersion, "the item has format version \(version); this program reads up to \(Self.version)",
                tier: .secrets, path: path())
        }
        guard let accessibility = SecretAccessibility(code: code),
            version == 1 || (version == 2 && accessibility.isThisDeviceOnly)
        else {
            throw StorageError(.corrupt, "the item header is damaged", tier: .secrets, path: path())
        }
        return (accessibility, version)
    }

    /// The length of the file's clear header and sealed attributes — the bytes the attributes box depends on,
    /// with its associated data (``associatedData(version:accessibility:keyringID:fileName:)``) — or `nil` when
    /// the file is too short to hold them.
    static func attributesEnd(of file: Data) -> Int? {
        file.withUnsafeBytes { attributesEnd(of: $0) }
    }

    /// ``attributesEnd(of:)`` of bytes already at hand.
    static func attributesEnd(of bytes: UnsafeRawBufferPointer) -> Int? {
        let lengthStart = headerSize + Sodium.nonceBytes
        guard bytes.count >= lengthStart + 4 else { return nil }
        let length = bytes[lengthStart..<(lengthStart + 4)].reduce(0) { $0 << 8 | Int($1) }
        let end = lengthStart + 4 + length
        return end <= bytes.count ? end : nil
    }

    /// Opens a sealed file: the attributes, and the value when asked (into a ``Secret``'s wiped buffer).
    ///
    /// `attributes` is the record these very bytes opened to before, under the same key, name and keyring (the
    /// caller compares the bytes up to ``attributesEnd(of:)``): the attributes box is then not opened again —
    /// the same ciphertext, nonce, associated data and key open to the same plaintext. The value box is opened
    /// in full either way, and its associated data holds the attributes' tag read from this file.
    ///
    /// `size` is the whole file's size when `file` holds only its first bytes, at least up to
    /// ``attributesEnd(of:)`` (a read of the attributes alone, which never reads a large value): the value box's
    /// length is then checked against it.
    package static func open(
        _ file: Data, size: Int? = nil, accessibility: SecretAccessibility, version: UInt8, keyringID: [UInt8],
        fileName: String, key: GuardedKey, path: @autoclosure () -> String, value wantsValue: Bool,
        attributes known: Record? = nil
    ) throws -> (Record, Secret?) {
        precondition(size == nil || !wantsValue, "the value needs the whole file")
        let size = size ?? file.count
        let (associated, deviceSuffix) = associatedData(
            version: version, accessibility: accessibility, keyringID: keyringID, fileName: fileName)
        /// A box that does not open: `device-mismatch` where this machine's identity is bound in (an item made
        /// elsewhere, or edited — the two cannot be told apart), else `corrupt`.
        func failure(deviceBound: Bool) -> StorageError {
            let why =
                deviceBound
                ? "it was edited, truncated, moved from another item, or made on another machine"
                : "it was edited, truncated, or moved from another item or keyring"
            return StorageError(
                deviceBound ? .deviceMismatch : .corrupt, "the item failed authentication: \(why)",
                tier: .secrets, path: path(),
                recovery: "Delete the item and store it again; its value cannot be trusted")
        }
        let attributesBindDevice = accessibility.isThisDeviceOnly && deviceSuffix.isEmpty
        func failure() -> StorageError { failure(deviceBound: attributesBindDevice) }
        // `header(of:path:)` checks this too; `open` does not rely on its caller for memory safety.
        guard size >= headerSize + 2 * (Sodium.nonceBytes + Sodium.tagBytes) + 4,
            file.count >= min(size, headerSize + Sodium.nonceBytes + 4)
        else { throw failure() }
        return try file.withUnsafeBytes { bytes throws -> (Record, Secret?) in
            let attributesNonce = UnsafeRawBufferPointer(rebasing: bytes[headerSize..<(headerSize + Sodium.nonceBytes)])
            var cursor = headerSize + Sodium.nonceBytes
            let attributesLength = bytes[cursor..<(cursor + 4)].reduce(0) { $0 << 8 | Int($1) }
            cursor += 4
            guard attributesLength >= Sodium.tagBytes,
                cursor + attributesLength + Sodium.nonceBytes + Sodium.tagBytes <= size,
                cursor + attributesLength <= bytes.count
            else { throw failure() }
            let sealedAttributes = UnsafeRawBufferPointer(rebasing: bytes[cursor..<(cursor + attributesLength)])
            cursor += attributesLength
            let record: Record =
                try known
                ?? key.withBytes { key in
                    let attributes = UnsafeMutableRawBufferPointer.allocate(byteCount: attributesLength, alignment: 16)
                    defer {
                        Sodium.memzero(attributes)
                        attributes.deallocate()
                    }
                    guard
                        Sodium.open(
                            sealedAttributes, additionalData: associated, nonce: attributesNonce, key: key,
                            into: attributes
                        )
                    else { throw failure() }
                    var reader = FieldReader(
                        bytes: UnsafeRawBufferPointer(rebasing: attributes[0..<(attributesLength - Sodium.tagBytes)]))
                    guard let service = reader.field(), let account = reader.field(), let label = reader.field(),
                        let created = reader.uint64(), let modified = reader.uint64(), let size = reader.uint64(),
                        reader.offset == reader.bytes.count
                    else {
                        throw StorageError(
                            .corrupt, "the item's attributes are malformed", tier: .secrets, path: path())
                    }
                    return Record(
                        service: service, account: account, label: label,
                        created: Date(timeIntervalSince1970: Double(bitPattern: created)),
                        modified: Date(timeIntervalSince1970: Double(bitPattern: modified)), valueSize: Int(size))
                }
            guard size - cursor - Sodium.nonceBytes == record.valueSize + Sodium.tagBytes else { throw failure() }
            guard wantsValue else { return (record, nil) }
            let valueNonce = UnsafeRawBufferPointer(rebasing: bytes[cursor..<(cursor + Sodium.nonceBytes)])
            cursor += Sodium.nonceBytes
            let sealedValue = UnsafeRawBufferPointer(rebasing: bytes[cursor...])
            var valueAssociated = associated  // Has room for the rest (see associatedData).
            // The tag by its range: `suffix` on a raw buffer is the generic, element-by-element one.
            valueAssociated += UnsafeRawBufferPointer(
                rebasing: sealedAttributes[(sealedAttributes.count - Sodium.tagBytes)...])
            valueAssociated += deviceSuffix
            let secret = try Secret(count: record.valueSize) { output in
                let opened = try key.withBytes { key in
                    Sodium.open(sealedValue, additionalData: valueAssociated, nonce: valueNonce, key: key, into: output)
                }
                guard opened else { throw failure(deviceBound: accessibility.isThisDeviceOnly) }
            }
            return (record, secret)
        }
    }

    static func appendField(_ text: String, to out: inout [UInt8]) {
        appendUInt64(UInt64(text.utf8.count), to: &out, width: 4)
        out.append(contentsOf: text.utf8)
    }

    static func appendUInt64(_ value: UInt64, to out: inout [UInt8], width: Int = 8) {
        for shift in stride(from: (width - 1) * 8, through: 0, by: -8) {
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    struct FieldReader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        mutating func uint(_ width: Int) -> UInt64? {
            guard offset + width <= bytes.count else { return nil }
            var value: UInt64 = 0
            for index in offset..<(offset + width) { value = value << 8 | UInt64(bytes[index]) }
            offset += width
            return value
        }

        mutating func uint64() -> UInt64? { uint(8) }

        mutating func field() -> String? {
            guard let length = uint(4).map(Int.init), offset + length <= bytes.count else { return nil }
            defer { offset += length }
            return String(
                validating: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]), as: UTF8.self)
        }
    }
}
