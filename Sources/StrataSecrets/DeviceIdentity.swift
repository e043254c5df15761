import Foundation

/// What binds `...ThisDeviceOnly` items to this machine: the systemd machine id (stable across reboots, new for
/// every installed or cloned system), else the host name. `STRATA_DEVICE_ID`, when set, takes precedence: for
/// containers whose machine id is shared by every copy of an image, and for tests. The binding guards against
/// items copied along with a folder, not against someone who can read this machine's id.
enum DeviceIdentity {
    static let current: [UInt8] = {
        if let override = ProcessInfo.processInfo.environment["STRATA_DEVICE_ID"], !override.isEmpty {
            return Array("configured:\(override)".utf8)
        }
        for path in ["/etc/machine-id", "/var/lib/dbus/machine-id"] {
            if let text = try? String(contentsOfFile: path, encoding: .utf8) {
                let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
                if !id.isEmpty { return Array("machine-id:\(id)".utf8) }
            }
        }
        return Array("host:\(ProcessInfo.processInfo.hostName)".utf8)
    }()
}
