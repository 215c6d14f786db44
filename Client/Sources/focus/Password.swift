// Password: the password for register and login, from FOCUS_PASSWORD (scripts) or typed at a
// prompt on the terminal with echo off. Never from an argument: arguments are visible to every
// user of the machine in ps and /proc.

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

enum Password {
    /// FOCUS_PASSWORD if set, else a prompt without echo on the terminal (stdin must be one).
    static func read(prompt: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(CLIError) -> String {
        if let password = environment["FOCUS_PASSWORD"] { return password }
        guard isatty(STDIN_FILENO) == 1 else {
            throw CLIError(.usage, "no terminal to ask for the password: set FOCUS_PASSWORD")
        }
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else {
            throw CLIError(.local, "could not read the terminal's settings: \(String(cString: strerror(errno)))")
        }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        FileHandle.standardError.write(Data(prompt.utf8))
        // Ctrl-C at the prompt must not leave the terminal without echo: put it back, then exit.
        savedTerminal = saved
        signal(SIGINT, restoreTerminalAndExit)
        signal(SIGTERM, restoreTerminalAndExit)
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent) == 0 else {
            throw CLIError(.local, "could not turn the terminal's echo off: \(String(cString: strerror(errno)))")
        }
        let line = readLine(strippingNewline: true)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
        FileHandle.standardError.write(Data("\n".utf8))
        guard let line else { throw CLIError(.usage, "no password given") }
        return line
    }
}

/// The terminal's settings before the prompt, for the signal handler (set once, before the
/// handler is installed; read only by it).
nonisolated(unsafe) private var savedTerminal = termios()

/// SIGINT or SIGTERM during the prompt: echo back on, a new line, and the shell's 128 + signal.
private func restoreTerminalAndExit(_ signal: Int32) {
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &savedTerminal)
    _ = write(STDERR_FILENO, "\n", 1)
    _exit(128 + signal)
}
