// ConfigDirectory: the files `focus` keeps between runs, in $XDG_CONFIG_HOME/focus-island
// (~/.config/focus-island without it): `token` (the bearer token), `session` (the id of the last
// session started, for finish and rate), `tips.json` (the tips synced so far) and `events` (the
// last event id `focus events` printed). Every file is written whole to a new file created with
// mode 0600 (never widened by a later chmod: no moment where another user could read it) and
// renamed over the old one, so a crash leaves the old file or the new one, never half of one.

import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The folder of this user's `focus` state.
struct ConfigDirectory {
    let path: String

    /// From the environment: `XDG_CONFIG_HOME` if set and absolute (as the XDG spec says), else `HOME/.config`.
    init(environment: [String: String] = ProcessInfo.processInfo.environment) throws(CLIError) {
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            path = xdg + "/focus-island"
        } else if let home = environment["HOME"], !home.isEmpty {
            path = home + "/.config/focus-island"
        } else {
            throw CLIError(.local, "neither XDG_CONFIG_HOME nor HOME is set: no place for the config directory")
        }
    }

    /// The contents of a file, trimmed of surrounding white space; nil when it does not exist.
    func read(_ name: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path + "/" + name),
            let text = String(data: data, encoding: .utf8)
        else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// The raw bytes of a file; nil when it does not exist.
    func data(_ name: String) -> Data? {
        FileManager.default.contents(atPath: path + "/" + name)
    }

    /// Replaces the file with these bytes, readable by this user only (0600, the folder 0700).
    func write(_ name: String, _ data: Data) throws(CLIError) {
        try makeDirectory()
        let target = path + "/" + name
        let temporary = target + ".new-\(getpid())"
        // O_EXCL: never write through a file or link someone else left at the temporary name.
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_TRUNC, S_IRUSR | S_IWUSR)
        guard descriptor >= 0 else { throw failure("could not create \(temporary)") }
        let ok = writeAll(descriptor, data) && fsync(descriptor) == 0
        close(descriptor)
        guard ok, rename(temporary, target) == 0 else {
            unlink(temporary)
            throw failure("could not write \(target)")
        }
    }

    func write(_ name: String, text: String) throws(CLIError) {
        try write(name, Data((text + "\n").utf8))
    }

    /// Removes the file; a file that is already gone is not an error.
    func remove(_ name: String) throws(CLIError) {
        if unlink(path + "/" + name) != 0 && errno != ENOENT {
            throw failure("could not remove \(path)/\(name)")
        }
    }

    private func makeDirectory() throws(CLIError) {
        // The parent ($XDG_CONFIG_HOME or ~/.config) may not exist yet; ours is private.
        let parent = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw CLIError(.local, "could not create \(parent): \(error.localizedDescription)")
        }
        if mkdir(path, S_IRWXU) != 0 && errno != EEXIST {
            throw failure("could not create \(path)")
        }
    }

    private func failure(_ what: String) -> CLIError {
        CLIError(.local, "\(what): \(String(cString: strerror(errno)))")
    }
}

/// Writes every byte to the descriptor (retrying short writes and interruptions).
private func writeAll(_ descriptor: Int32, _ data: Data) -> Bool {
    data.withUnsafeBytes { buffer -> Bool in
        guard let base = buffer.baseAddress else { return true }  // no bytes: nothing to write
        var written = 0
        while written < buffer.count {
            let n = write(descriptor, base + written, buffer.count - written)
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            written += n
        }
        return true
    }
}
