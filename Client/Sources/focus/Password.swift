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
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &silent) == 0 else {
            throw CLIError(.local, "could not turn the terminal's echo off: \(String(cString: strerror(errno)))")
        }
        let line = readLine(strippingNewline: true)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
        FileHandle.standardError.write(Data("\n".utf8))
        guard let line else { throw CLIError(.usage, "no password given") }
        return line
    }
}
