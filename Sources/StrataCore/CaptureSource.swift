/// A captured store being read back: the files of one snapshot, and their content on request.
public protocol CaptureSource: AnyObject {
    /// Every file of the capture, in the order they were added.
    var files: [CapturedFile] { get }
    /// Writes the content of `file` (one of ``files``) to `descriptor` at its current offset, in order.
    /// - Throws: ``StorageError`` naming the file when its content is missing, damaged or fails its
    ///   authentication (`.corruptData`, `.authenticationFailed`), or when `descriptor` cannot be written.
    func write(_ file: CapturedFile, to descriptor: Int32) throws
}
