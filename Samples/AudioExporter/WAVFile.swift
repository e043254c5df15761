import Foundation

/// 16-bit PCM WAV files of synthesized tones.
enum WAVFile {
    /// A tone of `frequency` Hz with a short fade in and out, and a second harmonic, as mono 16-bit PCM.
    static func tone(frequency: Double, seconds: Double, sampleRate: Int = 44_100) -> Data {
        let count = Int(seconds * Double(sampleRate))
        var samples = Data(capacity: count * 2)
        for index in 0..<count {
            let time = Double(index) / Double(sampleRate)
            let envelope = min(1, time / 0.05, (seconds - time) / 0.05)
            let value = (sin(2 * .pi * frequency * time) * 0.6 + sin(4 * .pi * frequency * time) * 0.2) * envelope
            let sample = Int16(max(-1, min(1, value)) * 32_000)
            withUnsafeBytes(of: sample.littleEndian) { samples.append(contentsOf: $0) }
        }
        return wrap(samples, sampleRate: sampleRate, channels: 1)
    }

    /// The RIFF/WAVE header around PCM samples.
    static func wrap(_ pcm: Data, sampleRate: Int, channels: Int) -> Data {
        func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        func le16(_ value: Int) -> [UInt8] { (0..<2).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
        var header = Array("RIFF".utf8) + le32(36 + pcm.count) + Array("WAVE".utf8)
        header += Array("fmt ".utf8) + le32(16) + le16(1) + le16(channels) + le32(sampleRate)
        header += le32(sampleRate * channels * 2) + le16(channels * 2) + le16(16)
        header += Array("data".utf8) + le32(pcm.count)
        return Data(header) + pcm
    }
}
