public import Foundation

/// Runs a program on a pseudo-terminal (Python's `pty` module drives it), as a person at a terminal would: it
/// waits for text to appear, then types or sends a signal.
///
/// ```swift
/// let run = try PseudoTerminal.run(strata, ["secrets", "list"], steps: [.type("pw\n", after: ": ")], in: folder)
/// #expect(run.status == 0 && run.echoAfter)
/// ```
public enum PseudoTerminal {
    /// One thing done to the program: once `after` appears once more than it had when the step began (and
    /// `delay` seconds more have passed), type `text` or send `signal`.
    public struct Step: Sendable {
        var after: String
        var delay: Double
        var text: String?
        var signal: Int32?

        /// Types `text` (`"\u{3}"` is Ctrl-C) once `after` appears again.
        public static func type(_ text: String, after: String = ": ", delay: Double = 0.2) -> Step {
            Step(after: after, delay: delay, text: text, signal: nil)
        }

        /// Sends `signal` to the program once `after` appears again.
        public static func signal(_ signal: Int32, after: String, delay: Double = 0) -> Step {
            Step(after: after, delay: delay, text: nil, signal: signal)
        }
    }

    /// How the program ended and what the terminal showed.
    public struct Outcome: Sendable {
        /// The exit status, or `nil` when a signal ended it.
        public var status: Int?
        /// The signal that ended it, or `nil`.
        public var signal: Int?
        /// Whether the terminal had echo on once it ended.
        public var echoAfter: Bool
        /// Everything the program wrote to the terminal (standard output and standard error), escape codes
        /// included.
        public var output: String

        /// The status a shell reports: the exit status, or 128 + the signal's number.
        public var shellStatus: Int? { status ?? signal.map { 128 + $0 } }
    }

    /// Runs `executable` with `arguments` on a new pseudo-terminal of `columns` columns, doing `steps` in order.
    /// - Parameters:
    ///   - environment: The program's environment (merged over this process's).
    ///   - folder: A folder for the driver script.
    /// - Throws: ``ChildProcess/Failure`` when the driver runs over `timeout` seconds.
    public static func run(
        _ executable: URL, _ arguments: [String], steps: [Step], columns: Int = 80,
        environment: [String: String] = [:], in folder: TemporaryDirectory, timeout: Double = 120
    ) throws -> Outcome {
        let driver = folder.appending("terminal_driver.py")
        try Data(script.utf8).write(to: URL(fileURLWithPath: driver))
        let plan: [[String: Any]] = steps.map { step in
            var entry: [String: Any] = ["after": step.after, "delay": step.delay]
            if let text = step.text { entry["text"] = text }
            if let signal = step.signal { entry["signal"] = Int(signal) }
            return entry
        }
        let encoded = String(decoding: try JSONSerialization.data(withJSONObject: plan), as: UTF8.self)
        let result = try ChildProcess.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            ["python3", driver, encoded, "\(columns)", executable.path] + arguments,
            environment: environment, timeout: timeout)
        let object =
            try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any] ?? [:]
        return Outcome(
            status: object["exit"] as? Int, signal: object["signal"] as? Int,
            echoAfter: object["echoAfter"] as? Bool ?? false,
            output: object["output"] as? String ?? result.standardError)
    }

    static let script = """
        import fcntl, json, os, pty, select, signal, struct, sys, termios, time
        steps = json.loads(sys.argv[1])
        columns = int(sys.argv[2])
        pid, fd = pty.fork()
        if pid == 0:
            # As a login shell would: the keyboard's signals take their default course (the test runner may ignore them).
            for number in (signal.SIGINT, signal.SIGQUIT, signal.SIGTERM):
                signal.signal(number, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            os.execv(sys.argv[3], sys.argv[3:])
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, columns, 0, 0))
        output = b""
        def read_some(deadline):
            global output
            while time.time() < deadline:
                ready, _, _ = select.select([fd], [], [], 0.05)
                if ready:
                    try:
                        chunk = os.read(fd, 65536)
                    except OSError:
                        return False
                    if not chunk:
                        return False
                    output += chunk
                    return True
            return True
        for step in steps:
            after = step["after"].encode()
            seen = output.count(after) if after else -1
            deadline = time.time() + 60
            while after and output.count(after) == seen and time.time() < deadline:
                if not read_some(deadline):
                    break
            pause = time.time() + step["delay"]
            while time.time() < pause and read_some(pause):
                pass
            if "text" in step:
                os.write(fd, step["text"].encode())
            else:
                os.kill(pid, step["signal"])
        deadline = time.time() + 60
        while read_some(deadline):
            pass
        _, status = os.waitpid(pid, 0)
        echo_after = bool(termios.tcgetattr(fd)[3] & termios.ECHO)
        print(json.dumps({"exit": os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
                          "signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
                          "echoAfter": echo_after, "output": output.decode(errors="replace")}))
        """
}
