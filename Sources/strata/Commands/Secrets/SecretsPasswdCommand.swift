import Strata

/// `strata secrets passwd`: a new passphrase for the keyring (one key rewrapped; the items are not touched).
struct SecretsPasswdCommand: ToolCommand {
    static let newPassphraseFileOption = Option(
        "--new-passphrase-file", "FILE",
        "Read the new passphrase from FILE, mode 0600 (else STRATA_NEW_PASSPHRASE, else the terminal, twice).",
        completion: .path)
    static let configuration = CommandConfiguration(
        "passwd", group: SecretsCommands.name, summary: "Change the keyring's passphrase (rewraps one key).",
        usage: "secrets passwd --root DIR [--new-passphrase-file FILE] [--json]",
        options: SecretsAccess.options + [newPassphraseFileOption, JSONOutput.option])

    var access: SecretsAccess
    var newPassphraseFile: String?
    var json: Bool

    init(parsing arguments: inout ParsedArguments) throws {
        access = try SecretsAccess(parsing: &arguments)
        newPassphraseFile = try arguments.value(Self.newPassphraseFileOption)
        json = arguments.isSet(JSONOutput.option)
    }

    func run() throws {
        let store = try access.open(for: .read)
        let new = try StoreAccess.passphrase(
            file: newPassphraseFile, variable: "STRATA_NEW_PASSPHRASE", prompt: "New passphrase: ", confirming: true,
            source: .newKeyringPassphrase)
        try store.changeKey(to: .passphrase(new))
        if json { return JSONOutput.print(.object(["itemCount": .integer(Int64(store.itemCount))])) }
        print("passphrase changed; \(store.itemCount) item(s) untouched")
    }
}
