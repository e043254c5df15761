import Foundation
import Strata
import StrataTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Issue 36 item 17: the completion scripts complete keys from the store named on the line (`--root`, before or
/// after the verb, else `STRATA_ROOT`), through the hidden verb `strata __complete-keys`, which prints the keys that
/// fit the word, nothing when it cannot read the store, and exits 1 where the word is no key.
@Suite("strata CLI: key completion")
struct KeyCompletionCLITests {
    let directory: TemporaryDirectory
    var root: String { directory.appending("store") }
    var secretsKeyFile: String { directory.appending("secrets.key") }
    let strata = StrataRunner()

    init() throws {
        directory = try TemporaryDirectory(prefix: "strata-key-completion")
    }

    struct Episode: Codable, Sendable {
        var title: String
    }

    /// A store with keys in every tier: defaults, a keyring opened by a key file, files, a collection and
    /// key-values of the records tier.
    func filledStore() throws {
        try Data(String(repeating: "ab", count: 32).utf8).write(to: URL(fileURLWithPath: secretsKeyFile))
        #expect(chmod(secretsKeyFile, 0o600) == 0)
        let storage = try Storage(root: root, secretsKey: .keyFile(secretsKeyFile))
        try storage.set("dark", for: "theme")
        try storage.set(5, for: "launchCount")
        try storage.set(Episode(title: "Pilot"), for: "episodes/1")
        try storage.put(
            Data(repeating: 1, count: 100), for: "notes/a.txt", as: DataDescriptor(kind: .file, estimatedSize: 100))
        try storage.put(
            Data(repeating: 1, count: 100), for: "notes/b.txt", as: DataDescriptor(kind: .file, estimatedSize: 100))
        try storage.backend(for: .defaults).flush()
        let secrets = ["secrets", "set", "--root", root, "--secrets-key-file", secretsKeyFile]
        #expect(try strata(secrets + ["api", "alice"], input: Data("x".utf8)).status == 0)
        #expect(try strata(secrets + ["api", "bob"], input: Data("y".utf8)).status == 0)
        #expect(try strata(secrets + ["mail", "carol"], input: Data("z".utf8)).status == 0)
        let people = directory.appending("people.jsonl")
        try Data((#"{"id":"p1"}"# + "\n").utf8).write(to: URL(fileURLWithPath: people))
        #expect(try strata(["records", "import", "people", people, "--root", root]).status == 0)
    }

    /// What `strata __complete-keys WORDS...` prints, one key a line, and its exit status.
    func complete(_ words: [String], runner: StrataRunner? = nil) throws -> (keys: [String], status: Int32) {
        let result = try (runner ?? strata)(["__complete-keys"] + words)
        #expect(result.standardError.isEmpty, "\(words): \(result.standardError)")
        return (result.standardOutput.split(separator: "\n").map(String.init), result.status)
    }

    @Test func hiddenVerbListsTheKeysOfTheStoreOnTheLine() throws {
        try filledStore()
        let all = try complete(["get", "--root", root, ""])
        #expect(all.status == 0)
        #expect(Set(["theme", "launchCount", "episodes/1", "notes/a.txt", "notes/b.txt"]).isSubset(of: Set(all.keys)))
        #expect(try complete(["--root", root, "where", "th"]).keys == ["theme"])
        #expect(try complete(["rm", "--root=\(root)", "notes/"]).keys == ["notes/a.txt", "notes/b.txt"])
        #expect(try complete(["get", "la"], runner: strata.with("STRATA_ROOT", root)).keys == ["launchCount"])
        #expect(try complete(["mv", "--root", root, "ep"]).keys == ["episodes/1"])

        #expect(try complete(["defaults", "get", "--root", root, ""]).keys == ["launchCount", "theme"])
        #expect(try complete(["defaults", "delete", "--root", root, "t"]).keys == ["theme"])
        #expect(try complete(["files", "rm", "--root", root, "notes/a"]).keys == ["notes/a.txt"])
        #expect(try complete(["files", "export", "--root", root, "notes/a.txt", "notes/b"]).keys == ["notes/b.txt"])
        #expect(try complete(["records", "query", "--root", root, "p"]).keys == ["people"])
        #expect(try complete(["records", "keys", "--root", root, ""]).keys == ["episodes/1"])

        let secrets = ["secrets", "get", "--root", root, "--secrets-key-file", secretsKeyFile]
        #expect(try complete(secrets + [""]).keys == ["api", "mail"])
        #expect(try complete(secrets + ["api", ""]).keys == ["alice", "bob"])
        #expect(try complete(secrets + ["mail", ""]).keys == ["carol"])
    }

    /// Where the word is no key (an option's value, a file argument, free text, a verb), exit 1 and nothing printed;
    /// where it is but the store cannot be read (no root, a missing one, a locked keyring), exit 0 and nothing.
    @Test func nothingWhereTheWordIsNoKeyOrTheStoreCannotBeRead() throws {
        try filledStore()
        for words in [
            ["get", "--root", root, "--output", ""], ["put", "--root", root, "theme", ""],
            ["defaults", "set", "--root", root, "theme", ""], ["defaults", "get", "--root", ""], ["files", ""],
            ["records", "get", "--root", root, "people", ""], ["inspect", ""], ["nonsense", ""], [""],
            ["get", "--root", root, "-"],
        ] {
            let result = try complete(words)
            #expect(result.status == 1 && result.keys.isEmpty, "\(words)")
        }
        for words in [
            ["get", ""], ["get", "--root", directory.appending("missing"), ""],
            ["get", "--root", directory.path, ""], ["secrets", "get", "--root", root, ""],
        ] {
            let result = try complete(words, runner: strata.with("STRATA_PASSPHRASE", ""))
            #expect(result.status == 0 && result.keys.isEmpty, "\(words)")
        }
    }

    /// Completing reads the store as the read verbs do: nothing in it is created or changed.
    @Test func completingChangesNothing() throws {
        try filledStore()
        let before = FolderTree(root)
        for words in [
            ["get", "--root", root, ""], ["defaults", "get", "--root", root, ""], ["files", "rm", "--root", root, ""],
            ["records", "query", "--root", root, ""], ["records", "keys", "--root", root, ""],
            ["secrets", "get", "--root", root, "--secrets-key-file", secretsKeyFile, ""],
            ["secrets", "get", "--root", root, "--secrets-key-file", secretsKeyFile, "api", ""],
        ] {
            #expect(try complete(words).status == 0)
            #expect(FolderTree(root) == before, "\(words) changed the store: \(FolderTree(root))")
        }
    }

    func script(_ shell: String) throws -> String {
        let result = try strata(["completions", shell])
        try #require(result.status == 0, "\(result.standardError)")
        return result.standardOutput
    }

    @Test func scriptsParse() throws {
        let bash = try ChildProcess.run(URL(fileURLWithPath: "/bin/bash"), ["-n", "-c", try script("bash")])
        #expect(bash.status == 0, "bash -n: \(bash.standardError)")
        let zsh = try script("zsh")
        let zshFile = directory.appending("_strata")
        try Data(zsh.utf8).write(to: URL(fileURLWithPath: zshFile))
        let zshCheck = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/zsh"), ["-n", zshFile])
        #expect(zshCheck.status == 0, "zsh -n: \(zshCheck.standardError)")
        let fishFile = directory.appending("strata.fish")
        try Data(try script("fish").utf8).write(to: URL(fileURLWithPath: fishFile))
        let fishCheck = try ChildProcess.run(URL(fileURLWithPath: "/usr/bin/fish"), ["--no-execute", fishFile])
        #expect(fishCheck.status == 0, "fish --no-execute: \(fishCheck.standardError)")
    }

    /// Sources the bash script and runs its completion function on `words` (the cursor in the last one), the
    /// first word the `strata` binary's path, as a shell would give it.
    func bashCompletes(_ words: [String]) throws -> [String] {
        let file = directory.appending("strata.bash")
        try Data(try script("bash").utf8).write(to: URL(fileURLWithPath: file))
        let binary = try TestExecutables.url(named: "strata").path
        let quoted = ([binary] + words).map { "'\($0)'" }.joined(separator: " ")
        let program = """
            source '\(file)'
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count)
            _strata
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try ChildProcess.run(
            URL(fileURLWithPath: "/bin/bash"), ["--norc", "-c", program], environment: ["STRATA_ROOT": ""])
        #expect(result.status == 0, "\(result.standardError)")
        return result.standardOutput.split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesKeys() throws {
        try filledStore()
        #expect(try bashCompletes(["get", "--root", root, "th"]) == ["theme"])
        #expect(try bashCompletes(["--root", root, "defaults", "get", ""]) == ["launchCount", "theme"])
        #expect(try bashCompletes(["files", "get", "--root", root, "notes/"]) == ["notes/a.txt", "notes/b.txt"])
        #expect(try bashCompletes(["records", "export", "--root", root, ""]) == ["people"])
        // A file argument after a key still completes paths.
        #expect(FileManager.default.createFile(atPath: directory.appending("photo.jpg"), contents: Data()))
        let prefix = directory.appending("pho")
        #expect(try bashCompletes(["put", "--root", root, "k", prefix]) == [prefix + "to.jpg"])
        // No key fits: nothing, never files.
        #expect(try bashCompletes(["get", "--root", root, prefix]).isEmpty)
    }

    /// bash as readline calls it: `COMP_WORDS` split at the `:` and `=` of `COMP_WORDBREAKS` as well as at blanks,
    /// `COMP_LINE` the line, the cursor at its end; what it offers replaces the last word of `COMP_WORDS`.
    func bashCompletes(line: String, splitAs words: [String]) throws -> [String] {
        let file = directory.appending("strata.bash")
        try Data(try script("bash").utf8).write(to: URL(fileURLWithPath: file))
        let binary = try TestExecutables.url(named: "strata").path
        let quoted = ([binary] + words).map { "'\($0)'" }.joined(separator: " ")
        let program = """
            source '\(file)'
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count)
            COMP_LINE='\(binary) \(line)'; COMP_POINT=${#COMP_LINE}
            _strata
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try ChildProcess.run(
            URL(fileURLWithPath: "/bin/bash"), ["--norc", "-c", program], environment: ["STRATA_ROOT": ""])
        #expect(result.status == 0, "\(result.standardError)")
        return result.standardOutput.split(separator: "\n").map(String.init)
    }

    /// Keys holding `:` or `=`, which bash splits a word at: the words are joined again, and what is offered is the
    /// part after the last break, which bash puts in place of the last word.
    @Test func bashCompletesKeysHoldingWordBreaks() throws {
        let storage = try Storage(root: root)
        for key in ["user:42", "user:43", "mode=fast", "a:b=c:d"] { try storage.set("v", for: key) }
        try storage.backend(for: .defaults).flush()
        #expect(
            try bashCompletes(line: "get --root \(root) user:4", splitAs: ["get", "--root", root, "user", ":", "4"])
                == ["42", "43"])
        #expect(
            try bashCompletes(line: "get --root \(root) user:", splitAs: ["get", "--root", root, "user", ":"])
                == ["42", "43"])
        #expect(
            try bashCompletes(
                line: "defaults get --root \(root) mode=", splitAs: ["defaults", "get", "--root", root, "mode", "="])
                == ["fast"])
        #expect(
            try bashCompletes(
                line: "rm --root \(root) a:b=c", splitAs: ["rm", "--root", root, "a", ":", "b", "=", "c"])
                == ["c:d"])
        // A blank between the words keeps them two words: `user` is a key of its own, and `:` none.
        #expect(
            try bashCompletes(line: "get --root \(root) u", splitAs: ["get", "--root", root, "u"]) == [
                "user:42", "user:43",
            ])
        #expect(
            try bashCompletes(line: "mv --root \(root) user :", splitAs: ["mv", "--root", root, "user", ":"]).isEmpty)
    }

    /// zsh runs the script's `_strata` with `words` and `CURRENT` set as its completion system sets them, and
    /// `compadd` and `_files` standing in for the builtins, which print what they are given.
    @Test func zshCompletesKeys() throws {
        try filledStore()
        let file = directory.appending("_strata")
        try Data(try script("zsh").utf8).write(to: URL(fileURLWithPath: file))
        let binary = try TestExecutables.url(named: "strata").path
        func completes(_ words: [String]) throws -> [String] {
            let quoted = ([binary] + words).map { "'\($0)'" }.joined(separator: " ")
            let program = """
                compdef() { : }
                compadd() { [[ $1 == -- ]] && shift; print -rl -- "$@" }
                _files() { print -r FILES }
                source '\(file)'
                words=(\(quoted)); CURRENT=\(words.count + 1)
                _strata
                """
            let result = try ChildProcess.run(
                URL(fileURLWithPath: "/usr/bin/zsh"), ["-f", "-c", program], environment: ["STRATA_ROOT": ""])
            #expect(result.status == 0, "\(result.standardError)")
            return result.standardOutput.split(separator: "\n").map(String.init)
        }
        #expect(try completes(["defaults", "get", "--root", root, "t"]) == ["theme"])
        #expect(try completes(["--root", root, "files", "rm", "notes/"]) == ["notes/a.txt", "notes/b.txt"])
        #expect(try completes(["put", "--root", root, "theme", ""]) == ["FILES"])
        #expect(
            try completes(["secrets", "get", "--root", root, "--key-file", secretsKeyFile, "api", ""]) == [
                "alice", "bob",
            ])
    }

    /// fish's own completion engine (`complete -C`) with the script loaded, `strata` on the path.
    @Test func fishCompletesKeys() throws {
        try filledStore()
        let fishFile = directory.appending("strata.fish")
        try Data(try script("fish").utf8).write(to: URL(fileURLWithPath: fishFile))
        let folder = try TestExecutables.url(named: "strata").deletingLastPathComponent().path
        let program = "source '\(fishFile)'; complete -C 'strata defaults get --root \(root) '"
        let result = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/fish"), ["--no-config", "-c", program],
            environment: ["PATH": folder + ":/usr/bin:/bin", "STRATA_ROOT": "", "HOME": directory.path])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(
            result.standardOutput.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
                == ["launchCount", "theme"])
    }
}
