// swift-tools-version:6.0
// FocusIslandClient: the Swift client of the Focus Island API, for iOS, macOS and Linux apps.
// Foundation (and FoundationNetworking on Linux) only: no libpq, no libmicrohttpd, no dependencies.
// Models and operations are generated from docs/openapi.json by scripts/generate-client.
import PackageDescription

let package = Package(
    name: "focus-island-client",
    platforms: [.macOS(.v13), .iOS(.v16)],
    products: [
        .library(name: "FocusIslandClient", targets: ["FocusIslandClient"]),
        .executable(name: "focus", targets: ["focus"]),
    ],
    targets: [
        .target(name: "FocusIslandClient", swiftSettings: [.swiftLanguageMode(.v6)]),
        // The command line (Sources/focus): the library and Foundation, no argument parser.
        .executableTarget(name: "focus", dependencies: ["FocusIslandClient"], swiftSettings: [.swiftLanguageMode(.v6)]),
        .testTarget(name: "FocusIslandClientTests", dependencies: ["FocusIslandClient"]),
        .testTarget(name: "focusTests", dependencies: ["focus", "FocusIslandClient"], swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
