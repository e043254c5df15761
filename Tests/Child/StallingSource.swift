import Foundation
import Strata
import StrataSystem
import StrataTestSupport

/// A capture source that stops for good after writing `stallAfter` files.
final class StallingSource: CaptureSource {
    let inner: FolderCapture
    let stallAfter: Int
    var written = 0

    init(inner: FolderCapture, stallAfter: Int) {
        self.inner = inner
        self.stallAfter = stallAfter
    }

    var files: [CapturedFile] { inner.files }

    func write(_ file: CapturedFile, to descriptor: FileDescriptor) throws {
        if written == stallAfter {
            say("stalled")
            while true { sleep(60) }
        }
        written += 1
        try inner.write(file, to: descriptor)
    }
}
