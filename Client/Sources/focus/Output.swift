// Output: where a command's results go. Sentences for people on stdout by default; with --json,
// the server's JSON, one object per line (so `focus events --follow --json` is a stream of
// lines a script can read one at a time). Problems always go to stderr.

import Foundation

struct Output {
    let json: Bool

    /// A sentence for people (nothing with --json: the JSON is the whole output then).
    func say(_ text: String) {
        guard !json else { return }
        Self.write(text)
    }

    /// A model as the server's JSON, on its own line (with --json only).
    func object(_ value: some Encodable) {
        guard json, var line = JSONText.line(value) else { return }
        line.append(0x0A)
        FileHandle.standardOutput.write(line)
    }

    /// Prints either the sentence or the model as JSON, as the output is set.
    func result(_ value: some Encodable, _ text: @autoclosure () -> String) {
        if json { object(value) } else { Self.write(text()) }
    }

    /// A line on stdout, unbuffered: a followed stream shows each event as it comes, even in a pipe.
    static func write(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// A line on stderr (problems, progress a script should not parse).
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
