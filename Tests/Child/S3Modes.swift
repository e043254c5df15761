import Foundation
import StrataS3

/// The child modes that work on an S3 bucket (the endpoint and keys from the `AWS_*` variables); `false` when
/// `arguments` names none of them.
func runS3Mode(_ arguments: [String]) throws -> Bool {
    switch arguments.first {
    case "s3-increment":
        // s3-increment URL KEY COUNT: COUNT updates of the decimal counter in KEY, each adding one, then `done`.
        let engine = try S3FileEngine(url: arguments[1])
        for _ in 0..<(Int(arguments[3]) ?? 1) {
            try engine.update(arguments[2]) { current in
                let value = current.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
                return Data(String(value + 1).utf8)
            }
        }
        say("done")
    default:
        return false
    }
    return true
}
