// swift-tools-version:6.0
// Focus Island: a thin HTTP layer (libmicrohttpd) over PostgreSQL (libpq).
// Only the toolchain and Debian's C libraries: no SwiftPM dependencies. Client/ is the app
// developers' package (Foundation only); the server's tests use it end to end.
import PackageDescription

let package = Package(
    name: "focus-island",
    products: [
        .executable(name: "focus-island", targets: ["focus-island"])
    ],
    dependencies: [.package(path: "Client")],
    targets: [
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        // Only Server/MHD/ imports CMicroHTTPD; CLinux: epoll, eventfd and socket flags glibc's module lacks.
        .systemLibrary(name: "CLinux"),
        // libcurl: the push (HTTP/2 through nghttp2) and mail (SMTP with STARTTLS) senders.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // libcrypto: the push sender's ES256 (APNs) and RS256 (FCM) JWT signatures.
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .target(name: "FocusIsland", dependencies: ["CLibPQ", "CMicroHTTPD", "CLinux", "CCurl", "CCrypto"]),
        .executableTarget(name: "focus-island", dependencies: ["FocusIsland"]),
        .testTarget(name: "FocusIslandTests", dependencies: ["FocusIsland"]),
        .testTarget(
            name: "ClientJourneyTests",
            dependencies: ["FocusIsland", .product(name: "FocusIslandClient", package: "Client")]),
    ]
)
