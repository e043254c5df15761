// AudioExporter: synthesizes recordings (16-bit PCM WAV tones) and stores everything through `Storage`, where the
// selector says — the audio in files, its metadata as records, the upload token in secrets — printing where each
// value went; then exports the recordings as zip and gzip. `--library DIR` first imports a folder of the user's
// files the same way.
//
//   swift run audio-exporter --root DIR [--output DIR] [--recordings N] [--library DIR]
//   (the secrets passphrase: STRATA_PASSPHRASE)
import Foundation
import SampleSupport
import Strata

struct RecordingRecord: Codable, Identifiable, Sendable {
    var id: String
    var title: String
    var seconds: Double
    var sampleRate: Int
    var key: String
}

/// Synthesizes the recordings, stores them, their metadata and the upload token through the facade, and exports
/// them.
func run() throws {
    guard let root = Sample.option("--root") else { throw StorageError(.invalidArgument, "--root DIR is required") }
    let output = Sample.option("--output", default: root + "-exports")!
    let count = Int(Sample.option("--recordings", default: "3")!) ?? 3
    try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
    let storage = try Sample.openStorage(root: root)
    try Sample.importLibraryOption(into: storage)
    var items: [LibraryItem] = []
    var keys: [String] = []
    for number in 1...max(1, count) {
        let seconds = 2.0 + Double(number % 3)
        let frequency = 220.0 * pow(2, Double(number) / 12)
        let wav = WAVFile.tone(frequency: frequency, seconds: seconds)
        let key = "recordings/memo-\(number).wav"
        items.append(
            LibraryItem(
                key: key, label: "memo-\(number).wav", value: wav,
                descriptor: DataDescriptor(kind: .file, estimatedSize: 0, contentType: "audio/wav"),
                expectedTier: .files))
        let record = RecordingRecord(
            id: "memo-\(number)", title: String(format: "Tone %.1f Hz", frequency), seconds: seconds,
            sampleRate: 44_100, key: key)
        items.append(
            try .metadata(record, key: "recording-metadata/memo-\(number)", label: "metadata of memo-\(number)"))
        keys.append(key)
    }
    let token = Secret("upload-" + UUID().uuidString)
    items.append(
        LibraryItem(
            key: "uploads/audio-exporter", label: "upload token", value: token.data,
            descriptor: DataDescriptor(kind: .credential, estimatedSize: 0), expectedTier: .secrets))
    try Sample.importLibrary(items, into: storage)
    let files = try Sample.fileStore(of: storage)
    let zip = output + "/recordings.zip"
    let archive = try files.exportZip(["recordings"], to: zip)
    let gzip = output + "/memo-1.wav.gz"
    try files.exportGzip(keys[0], to: gzip)
    Sample.say(
        "stored \(try Sample.count(storage, prefix: "recordings/", in: .files)) recording(s) in files, "
            + "\(try Sample.count(storage, prefix: "recording-metadata/", in: .records)) record(s) in records, "
            + "the upload token \(token) in secrets")
    Sample.say("exported \(zip) (\(archive.entries) entries) and \(gzip)")
    for key in keys { Sample.say("wav: \(try files.path(for: key))") }
}

do {
    try run()
} catch {
    Sample.fail(error)
}
