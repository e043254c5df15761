import Foundation

/// Hostile classes for property lists: bplist reference bombs, NFC/NFD twin keys.
let plistHostileClasses: [HostileFormat] = []
