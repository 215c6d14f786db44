import Foundation
import Testing

@testable import focus

/// The config directory: where it is, and that its files are private from their first byte.
@Suite struct ConfigDirectoryTests {
    private func scratch() throws -> String {
        let path = NSTemporaryDirectory() + "focus-config-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private func mode(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test func xdgConfigHomeWhenAbsoluteElseHome() throws {
        #expect(try ConfigDirectory(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"]).path == "/x/focus-island")
        #expect(try ConfigDirectory(environment: ["XDG_CONFIG_HOME": "relative", "HOME": "/h"]).path == "/h/.config/focus-island")
        #expect(try ConfigDirectory(environment: ["HOME": "/h"]).path == "/h/.config/focus-island")
        #expect(throws: CLIError.self) { try ConfigDirectory(environment: [:]) }
    }

    @Test func filesAre0600InA0700Directory() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let config = try ConfigDirectory(environment: ["XDG_CONFIG_HOME": root + "/deeper"])
        try config.write("token", text: "secret")
        #expect(config.read("token") == "secret")
        #expect(try mode(config.path + "/token") == 0o600)
        #expect(try mode(config.path) == 0o700)
    }

    @Test func rewritingAWiderFileLeavesA0600One() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let config = try ConfigDirectory(environment: ["XDG_CONFIG_HOME": root])
        try config.write("token", text: "old")
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: config.path + "/token")
        try config.write("token", text: "new")
        #expect(config.read("token") == "new")
        #expect(try mode(config.path + "/token") == 0o600)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: config.path).filter { $0 != "token" }
        #expect(leftovers.isEmpty)
    }

    @Test func removingAMissingFileIsNotAnError() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let config = try ConfigDirectory(environment: ["XDG_CONFIG_HOME": root])
        try config.remove("session")
        #expect(config.read("session") == nil)
    }
}
