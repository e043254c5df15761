import StrataRecords

/// The benchmark's `Person` (same fields, same stored JSON) with a hand-written `RecordDecodable` conformance: a
/// collection of it reads the rows `Person`'s collection wrote, through the record reader instead of `Codable`.
struct ReaderPerson: Record, RecordDecodable {
    var id: String
    var name: String
    var email: String
    var age: Int
    var tags: [String]

    init(record: borrowing RecordReader) throws {
        id = try record.decode(forKey: "id")
        name = try record.decode(forKey: "name")
        email = try record.decode(forKey: "email")
        age = try record.decode(forKey: "age")
        tags = try record.decode(forKey: "tags")
    }
}
