/// Tells whether a key name looks like it holds a credential, which belongs in secrets, never in defaults.
///
/// The name is split into words at case changes, digits and punctuation (`authToken`, `api_key`, `DB-Password`),
/// and matched against credential words and word pairs. Whole words only: `tokenizer` and `passwordless` are
/// not matches... but `authToken` and `userPassword` are.
public enum SensitiveKeyDetector {
    static let words: Set<String> = [
        "token", "tokens", "password", "passwords", "passwd", "pwd", "passphrase", "secret", "secrets", "credential",
        "credentials", "apikey", "apikeys", "privatekey", "accesskey", "secretkey", "sessionkey", "cookie", "cookies",
        "jwt", "bearer", "otp", "pin", "ssn",
    ]
    static let pairs: Set<[String]> = [
        ["api", "key"], ["private", "key"], ["access", "key"], ["secret", "key"], ["session", "key"],
        ["signing", "key"], ["encryption", "key"], ["client", "secret"], ["auth", "key"],
    ]

    /// The credential word found in `name`, or `nil` when it looks harmless.
    public static func sensitiveWord(in name: String) -> String? {
        let parts = words(of: name)
        if let word = parts.first(where: words.contains) { return word }
        for index in parts.indices.dropLast() where pairs.contains([parts[index], parts[index + 1]]) {
            return parts[index] + " " + parts[index + 1]
        }
        return nil
    }

    /// Splits `authTokenV2`, `api_key`, `HTTPCookie` into lowercase words.
    static func words(of name: String) -> [String] {
        var result: [String] = []
        var current = ""
        let characters = Array(name)
        for (index, character) in characters.enumerated() {
            guard character.isLetter else {
                if !current.isEmpty { result.append(current.lowercased()) }
                current = ""
                continue
            }
            if character.isUppercase, !current.isEmpty {
                let previousIsLower = characters[index - 1].isLowercase
                let nextIsLower = index + 1 < characters.count && characters[index + 1].isLowercase
                // A new word starts at aB, and at the last capital of a run followed by lowercase (HTTPCookie).
                if previousIsLower || (nextIsLower && characters[index - 1].isUppercase) {
                    result.append(current.lowercased())
                    current = ""
                }
            }
            current.append(character)
        }
        if !current.isEmpty { result.append(current.lowercased()) }
        return result
    }
}
