import Foundation
import StrataFiles
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
    case "s3-write-stop":
        // s3-write-stop URL KEY SIZE BYTE STEP: a streamed write of SIZE copies of BYTE to KEY that says `at STEP`
        // when it reaches that step of its multipart upload (an `S3WriteStep`) and then waits to be killed.
        let engine = try S3FileEngine(url: arguments[1])
        let stop = arguments[5]
        engine.observeWriteSteps { step in
            guard step.rawValue == stop else { return }
            say("at \(stop)")
            while true { Thread.sleep(forTimeInterval: 60) }
        }
        let size = Int(arguments[3]) ?? 0
        let chunk = Data(repeating: UInt8(arguments[4]) ?? 0, count: 1 << 20)
        try engine.write(arguments[2]) { writer in
            var written = 0
            while written < size {
                try writer.write(chunk.prefix(size - written))
                written += min(chunk.count, size - written)
            }
        }
        say("done")
    default:
        return false
    }
    return true
}
