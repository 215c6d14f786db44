// HTTP and content hardening end to end (docs/security.md, "HTTP and content"): every answer
// says nosniff and no cache keeps an answer with a token or the export; display names are one
// clean spelling and pass the blocklist on sign-up and rename; an Idempotency-Key with a space
// is the documented 400; avatars are served without their metadata, and a PNG that is also an
// HTML page is served as neither HTML nor with its page.
import Foundation
import Testing

@Suite struct HardeningHTTPTests {
    static let password = "correct horse"

    func register(_ client: Client, _ email: String, _ name: String) throws -> HTTPResult {
        let body = try JSONSerialization.data(withJSONObject: ["email": email, "password": Self.password, "display_name": name])
        return try client.send("POST", "/auth/register", json: String(decoding: body, as: UTF8.self))
    }

    func rename(_ client: Client, _ account: Account, _ name: String) throws -> HTTPResult {
        let body = try JSONSerialization.data(withJSONObject: ["display_name": name])
        return try client.send("PATCH", "/me", token: account.token, json: String(decoding: body, as: UTF8.self))
    }

    func displayName(_ account: Account) throws -> String? {
        try TestEnvironment.scalar("select display_name from app.users where id = $1::uuid", [account.id])
    }

    // MARK: Headers

    @Test(arguments: Transport.allCases)
    func answersWithTokensOrTheExportAreNotStoredAndNoAnswerIsSniffed(transport: Transport) throws {
        let client = transport.client
        let email = TestEnvironment.email("nostore")
        let registered = try register(client, email, "Nostore")
        #expect(registered.status == 201)
        let token = try #require(registered.json["token"] as? String)
        let login = try client.send("POST", "/auth/login", json: #"{"email":"\#(email)","password":"\#(Self.password)"}"#)
        #expect(login.status == 200 && login.json["token"] != nil)
        let confirm = try client.send(
            "POST", "/auth/password-reset/confirm",
            json: #"{"email":"\#(email)","code":"000000","new_password":"another horse"}"#)
        #expect(confirm.status == 400)
        let export = try client.send("GET", "/me/export", token: token)
        #expect(export.status == 200)
        for (name, result) in [("register", registered), ("login", login), ("reset confirm", confirm), ("export", export)] {
            #expect(result.header("Cache-Control") == "no-store", "\(name)")
            #expect(result.header("X-Content-Type-Options") == "nosniff", "\(name)")
        }

        for (method, target, auth) in [
            ("GET", "/health", nil), ("GET", "/nowhere", nil), ("DELETE", "/health", nil), ("GET", "/me", nil),
            ("GET", "/friends", token), ("GET", "/shop/items", nil), ("GET", "/openapi.json", nil),
            ("GET", "/events", token),
        ] as [(String, String, String?)] {
            let result = try client.send(method, target, token: auth)
            #expect(result.header("X-Content-Type-Options") == "nosniff", "\(method) \(target): \(result.status)")
        }
        // What says how it may be kept keeps saying it: an ETag's revalidation, the contract's max-age.
        // A person's own ETagged answers are kept by their own client only (private).
        #expect(try client.send("GET", "/friends", token: token).header("Cache-Control") == "private, no-cache")
        #expect(try client.send("GET", "/me", token: token).header("Cache-Control") == "private, no-cache")
        #expect(try client.send("GET", "/shop/items").header("Cache-Control") == "no-cache")
        #expect(try client.send("GET", "/openapi.json").header("Cache-Control")?.hasPrefix("public") == true)
    }

    @Test func aStreamAndAnOversizeHeadSayNosniffToo() throws {
        let account = try Transport.socket.client.register("sniff")
        let stream = try EventStreamClient(port: TestServer.client().port, target: "/events", token: account.token)
        #expect(stream.status == 200)
        #expect(stream.headers["x-content-type-options"] == "nosniff")
        #expect(stream.headers["cache-control"] == "no-store")
        stream.close()
        let large = try TestServer.client().send("GET", "/health", headers: ["X-Padding": String(repeating: "p", count: 9000)])
        #expect(large.status == 431)
        #expect(large.header("X-Content-Type-Options") == "nosniff")
    }

    // MARK: Idempotency-Key

    @Test(arguments: Transport.allCases)
    func anIdempotencyKeyWithASpaceIsTheDocumented400AndDoesNothing(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("spacekey")
        _ = try TestEnvironment.owner().execute("select app.grant_coins($1::uuid, 500, 'hardening test')", [account.id])
        let item = try #require(try TestEnvironment.scalar("select id::text from app.shop_items where name = 'Pip the Fox'"))
        for key in ["buy one", "a b c", "tab\there"] {
            let result = try client.send(
                "POST", "/shop/purchases", token: account.token, json: #"{"item_id":"\#(item)"}"#,
                headers: ["Idempotency-Key": key])
            #expect(result.status == 400, "\(key)")
            #expect(result.code == "invalid_field", "\(key)")
            #expect(result.header("Content-Type") == "application/problem+json")
        }
        #expect(try TestEnvironment.scalar("select balance::text from app.users where id = $1::uuid", [account.id]) == "500")
        #expect(
            try TestEnvironment.scalar("select count(*)::text from app.idempotency_keys where scope = 'user:' || $1", [account.id]) == "0")
    }

    // MARK: Display names

    @Test(arguments: Transport.allCases)
    func displayNamesAreOneCleanSpellingAndNotReserved(transport: Transport) throws {
        let client = transport.client
        let composed = try register(client, TestEnvironment.email("nfc"), "Zoe\u{0308}")
        #expect(composed.status == 201)
        let stored = (composed.json["user"] as? [String: Any])?["display_name"] as? String ?? ""
        #expect(stored.unicodeScalars.map(\.value) == [0x5A, 0x6F, 0xEB], "one code point for the ë, no space left")
        for (name, why) in [
            ("Ann\u{202E}nimda", "a right-to-left override"), ("An\u{200B}n", "a zero-width space"),
            ("Ann\u{2066}x\u{2069}", "a bidi isolate"), ("Z\u{0336}\u{0337}\u{0338}algo", "a flood of combining marks"),
            ("A\u{0007}nn", "a control character"), ("Deleted user", "the name of deleted accounts"),
            ("deleted  USER", "... in other case and spacing"), ("Adm1n", "admin"), ("Moderator", "moderator"),
            ("Focus Island", "the app's name"),
        ] {
            let refused = try register(client, TestEnvironment.email("badname"), name)
            #expect(refused.status == 400, "\(why)")
            #expect(refused.code == "invalid_display_name", "\(why)")
        }
        let account = try client.register("renamer")
        let before = try displayName(account)
        for name in ["Deleted user", "x\u{202E}y", "\u{200D}\u{200D}"] {
            let refused = try rename(client, account, name)
            #expect(refused.status == 400 && refused.code == "invalid_display_name", "\(name.unicodeScalars.map(\.value))")
        }
        #expect(try displayName(account) == before, "a refused rename changes nothing")
    }

    @Test(arguments: Transport.allCases)
    func theNameBlocklistCatchesEvasionsOnSignUpAndRename(transport: Transport) throws {
        let client = transport.client
        // "official" is one of the terms app.blocked_name_terms is seeded with.
        for name in ["official", "OfFiCiAl", "O f f i c i a l", "0ff1c1al", "Off.ic-ial", "The Official Ann", "\u{FF4F}fficial"] {
            let refused = try register(client, TestEnvironment.email("filter"), name)
            #expect(refused.status == 400, "\(name)")
            #expect(refused.code == "inappropriate_display_name", "\(name)")
            #expect(refused.header("Content-Type") == "application/problem+json")
        }
        let account = try client.register("filtered")
        let before = try displayName(account)
        let refused = try rename(client, account, "0 F F 1 C 1 4 L")
        #expect(refused.status == 400 && refused.code == "inappropriate_display_name")
        #expect(try displayName(account) == before, "a refused rename changes nothing")
        let fine = try rename(client, account, "Offside Fan")
        #expect(fine.status == 200 && fine.json["display_name"] as? String == "Offside Fan")
    }

    // MARK: Avatars

    /// A JPEG segment: marker, then a big-endian length that counts itself.
    static func segment(_ marker: UInt8, _ data: [UInt8]) -> [UInt8] {
        let length = data.count + 2
        return [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + data
    }

    /// A PNG chunk (the CRC is not checked on the way in).
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let length = UInt32(data.count)
        return [UInt8(length >> 24), UInt8((length >> 16) & 0xFF), UInt8((length >> 8) & 0xFF), UInt8(length & 0xFF)]
            + Array(type.utf8) + data + [0, 0, 0, 0]
    }

    /// The markers of a JPEG's segments up to its first scan, walked by their lengths as a
    /// decoder walks them; nil if the walk does not land on a marker each time.
    static func markers(_ jpeg: [UInt8]) -> [UInt8]? {
        guard jpeg.starts(with: [0xFF, 0xD8]) else { return nil }
        var markers: [UInt8] = [], at = 2
        while at + 4 <= jpeg.count {
            guard jpeg[at] == 0xFF else { return nil }
            let marker = jpeg[at + 1]
            markers.append(marker)
            if marker == 0xDA { return markers }
            at += 2 + Int(jpeg[at + 2]) << 8 + Int(jpeg[at + 3])
        }
        return nil
    }

    @Test(arguments: Transport.allCases)
    func aJPEGWithGPSIsServedWithoutItAndStillDecodes(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("gps")
        // A 1×1 baseline-structured JPEG (arithmetic coding: SOF9 and DAC), with what a phone adds:
        // EXIF with a GPS position, XMP, an ICC profile and a comment.
        let jfif = Self.segment(0xE0, [0x4A, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x01, 0x00, 0x48, 0x00, 0x48, 0x00, 0x00])
        let exif = Self.segment(
            0xE1,
            Array("Exif".utf8) + [0, 0] + [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08]
                + Array("GPSLatitude N 48 51 30.12 GPSLongitude E 2 17 40.2".utf8))
        let xmp = Self.segment(0xE1, Array("http://ns.adobe.com/xap/1.0/\u{0}<exif:GPSLatitude>48,51.502N</exif:GPSLatitude>".utf8))
        let icc = Self.segment(0xE2, Array("ICC_PROFILE\u{0}".utf8) + [1, 1])
        let comment = Self.segment(0xFE, Array("GPS 48.858370 2.294481".utf8))
        let quantization = Self.segment(
            0xDB,
            [0x00] + [
                3, 2, 2, 2, 2, 2, 3, 2, 2, 2, 3, 3, 3, 3, 4, 6, 4, 4, 4, 4, 4, 8, 6, 6, 5, 6, 9, 8, 10, 10, 9, 8,
                9, 9, 10, 12, 15, 12, 10, 11, 14, 11, 9, 9, 13, 17, 13, 14, 15, 16, 16, 17, 16, 10, 12, 18, 19, 18, 16, 19, 15, 16,
            ])
        let frame = Self.segment(0xC9, [0x08, 0x00, 0x01, 0x00, 0x01, 0x01, 0x01, 0x11, 0x00])
        let conditioning = Self.segment(0xCC, [0x00, 0x10, 0x10, 0x05])
        let scan = Self.segment(0xDA, [0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]) + [0xD2, 0xCF, 0x20, 0xFF, 0xD9]
        let uploaded = [0xFF, 0xD8] + jfif + exif + xmp + icc + comment + quantization + frame + conditioning + scan
        let put = try client.send("PUT", "/me/avatar", token: account.token, body: uploaded, headers: ["Content-Type": "image/jpeg"])
        #expect(put.status == 204)

        let served = try client.send("GET", "/users/\(account.id)/avatar", token: account.token)
        #expect(served.status == 200 && served.header("Content-Type") == "image/jpeg")
        #expect(served.header("X-Content-Type-Options") == "nosniff")
        #expect(served.body.firstRange(of: Array("GPS".utf8)) == nil, "no byte of the GPS position is served")
        #expect(served.body.firstRange(of: Array("Exif".utf8)) == nil && served.body.firstRange(of: Array("ICC_PROFILE".utf8)) == nil)
        #expect(
            Self.markers(served.body) == [0xE0, 0xDB, 0xC9, 0xCC, 0xDA], "SOI, JFIF, tables, frame and scan walk as a decoder walks them")
        #expect(
            served.body == [0xFF, 0xD8] + jfif + quantization + frame + conditioning + scan,
            "what a decoder reads is byte for byte the same")
        #expect(served.body.suffix(2) == [0xFF, 0xD9])
        let stored = try TestEnvironment.scalar(
            "select position('\\x475053'::bytea in data)::text from app.avatars where user_id = $1::uuid", [account.id])
        #expect(stored == "0", "nor stored")
    }

    @Test(arguments: Transport.allCases)
    func aPNGThatIsAlsoAPageIsServedAsAnImageWithoutThePage(transport: Transport) throws {
        let client = transport.client
        let account = try client.register("polyglot")
        let page = Array("<html><body><script>alert(document.domain)</script></body></html>".utf8)
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        let header = Self.chunk("IHDR", [0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0])
        let data = Self.chunk("IDAT", [0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00, 0x05, 0x00, 0x01])
        let end = Self.chunk("IEND", [])
        let uploaded = signature + header + Self.chunk("tEXt", Array("Comment\u{0}".utf8) + page) + data + end + page
        let put = try client.send("PUT", "/me/avatar", token: account.token, body: uploaded, headers: ["Content-Type": "image/png"])
        #expect(put.status == 204)
        let served = try client.send("GET", "/users/\(account.id)/avatar", token: account.token)
        #expect(served.status == 200)
        #expect(served.header("Content-Type") == "image/png")
        #expect(served.header("X-Content-Type-Options") == "nosniff", "no browser may take it for HTML")
        #expect(served.body.firstRange(of: Array("<script".utf8)) == nil, "the page is not served")
        #expect(served.body == signature + header + data + end)
    }
}
