// AudioExporter: synthesizes recordings (16-bit PCM WAV tones) and stores them where the decision table says —
// the audio in files, its metadata as records, the upload token in secrets — then exports them as zip and gzip.
//
//   swift run audio-exporter --root DIR [--output DIR] [--recordings N]   (passphrase: STRATA_PASSPHRASE)
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

do {
    guard let root = Sample.option("--root") else { throw StorageError(.invalidArgument, "--root DIR is required") }
    let output = Sample.option("--output", default: root + "-exports")!
    let count = Int(Sample.option("--recordings", default: "3")!) ?? 3
    let passphrase = ProcessInfo.processInfo.environment["STRATA_PASSPHRASE"] ?? "strata demo passphrase"
    try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
    let storage = try Storage(root: root, secretsKey: .passphrase(passphrase))
    let files = try FileStore(paths: storage.paths)
    let records = try RecordStore(name: "main", paths: storage.paths)
    let recordings = try records.collection(RecordingRecord.self, named: "recordings")
    let secrets = try SecretStore(keyring: "default", paths: storage.paths, unlockingWith: .passphrase(passphrase))
    var keys: [String] = []
    for number in 1...max(1, count) {
        let seconds = 2.0 + Double(number % 3)
        let frequency = 220.0 * pow(2, Double(number) / 12)
        let wav = WAVFile.tone(frequency: frequency, seconds: seconds)
        let key = "recordings/memo-\(number).wav"
        _ = try Sample.route(
            storage, "memo-\(number).wav",
            DataDescriptor(kind: .file, estimatedSize: wav.count, contentType: "audio/wav"), expect: .files)
        try files.write(wav, to: key)
        _ = try Sample.route(
            storage, "metadata of memo-\(number)",
            DataDescriptor(kind: .structured, estimatedSize: 150, isQueried: true), expect: .records)
        try recordings.upsert(
            RecordingRecord(
                id: "memo-\(number)", title: String(format: "Tone %.1f Hz", frequency), seconds: seconds,
                sampleRate: 44_100, key: key))
        keys.append(key)
    }
    let token = Secret("upload-" + UUID().uuidString)
    _ = try Sample.route(
        storage, "upload token", DataDescriptor(kind: .credential, estimatedSize: token.count), expect: .secrets)
    try secrets.set(
        token, service: "uploads.example.com", account: "audio-exporter", label: "Upload token",
        accessibility: .afterFirstUnlock)
    let zip = output + "/recordings.zip"
    let archive = try files.exportZip(["recordings"], to: zip)
    let gzip = output + "/memo-1.wav.gz"
    try files.exportGzip(keys[0], to: gzip)
    Sample.say(
        "stored \(keys.count) recording(s) in files, \(try recordings.count()) record(s) in records, the upload token \(token) in secrets"
    )
    Sample.say("exported \(zip) (\(archive.entries) entries) and \(gzip)")
    for key in keys { Sample.say("wav: \(try files.path(for: key))") }
} catch {
    Sample.fail(error)
}
