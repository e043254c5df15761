public import Foundation

/// `AtomicFile.createsUnnamedFiles` is one switch for the whole process: a test that makes the system refuse an
/// unnamed file (an injected `EOPNOTSUPP`) turns it off until it turns it back on. Tests of different suites run
/// at once in one process, so each test that turns it off, or counts on it staying on, holds this lock for its
/// whole body.
public enum UnnamedFileSwitch {
    /// Held by every test that changes the switch or depends on its value.
    public static let lock = NSLock()
}
