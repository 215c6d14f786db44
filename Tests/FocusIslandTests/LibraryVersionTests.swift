// The event streams' hand-off relies on how libmicrohttpd 0.9.75 sends a response's headers and
// closes a TURBO connection (Server/MHD/LibraryVersion.swift): the server checks the loaded
// library's version at start and refuses, in one line, any it was not verified with.
import Foundation
import Testing

@testable import FocusIsland

@Suite struct LibraryVersionTests {
    @Test func theLoadedLibraryIsAVerifiedVersion() throws {
        let installed = LibraryVersion.installed
        #expect(LibraryVersion.Version(installed) != nil, "MHD_get_version() said '\(installed)'")
        try LibraryVersion.check(installed)
    }

    @Test(arguments: ["0.9.74", "0.9.76", "1.0.1", "0.10.75", "0.9", "0.9.75.1", "0.9.75-rc1", "v0.9.75", ""])
    func anyOtherVersionIsRefusedInOneLine(version: String) {
        do {
            try LibraryVersion.check(version)
            Issue.record("libmicrohttpd '\(version)' was accepted")
        } catch {
            #expect(error.description.hasPrefix("libmicrohttpd \(version.isEmpty ? "(no version)" : version) is not"))
            #expect(error.description.contains("0.9.75 to 0.9.75"))
            #expect(!error.description.contains("\n"))
        }
    }

    @Test func aServerOnAnotherVersionRefusesToStartAndListensNowhere() throws {
        var configuration = Configuration.defaults
        configuration.port = 0
        configuration.logFormat = .off
        let server = HTTPServer(pipeline: try TestServer.pipeline(), configuration: configuration, streams: EventStreams())
        #expect(throws: ServerError.self) { try server.start(libraryVersion: "1.0.1") }
        #expect(server.port == 0, "nothing was bound")
        server.stop()
    }
}
