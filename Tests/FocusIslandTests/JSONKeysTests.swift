import Testing

// JSONKeys's scan of a body's bytes (Sources/FocusIsland/HTTP/JSONKeys.swift): a key repeated in
// one object at any depth, compared as jsonb compares keys (escapes resolved, no normalisation),
// and never a key of another object, an array's strings or a value; what counts as no body.
@testable import FocusIsland

@Suite struct JSONKeysTests {
    func duplicate(_ text: String) -> String? { JSONKeys.firstDuplicate(in: Array(text.utf8)) }

    @Test func aKeyTwiceInOneObjectIsFoundAtAnyDepth() {
        #expect(duplicate(#"{"coins":1,"coins":999}"#) == "coins")
        #expect(duplicate(#"{"a":{"b":1,"c":{"d":[1,{"e":2,"e":3}]}}}"#) == "e")
        #expect(duplicate(#"{"sessions":[{"id":"1","tag":"x"},{"id":"2","tag":"y","tag":"z"}]}"#) == "tag")
        #expect(duplicate(#"[{"a":1},{"a":1,"a":2}]"#) == "a")
        #expect(duplicate(" {\n\t\"a\" : 1 ,\r\n \"a\" : 2 } ") == "a")
        // After a nested value the object goes on: its next key is still one of its own.
        #expect(duplicate(#"{"a":{"x":1},"b":[1,2],"a":3}"#) == "a")
    }

    @Test func equalKeysInOtherObjectsOrAsValuesAreNoDuplicate() {
        #expect(duplicate(#"{"a":1,"b":2}"#) == nil)
        #expect(duplicate(#"{"a":{"a":{"a":1}}}"#) == nil)
        #expect(duplicate(#"[{"a":1},{"a":2}]"#) == nil)
        #expect(duplicate(#"{"a":"a","b":["a","a"],"c":{"a":"b"}}"#) == nil)
        #expect(duplicate(#"{"k":"\"k\":1,\"k\":2","l":"{\"m\":1,\"m\":2}"}"#) == nil)
        #expect(duplicate(#"{"a":1,"A":2,"a ":3}"#) == nil)
        #expect(duplicate("{}") == nil && duplicate("") == nil && duplicate("[]") == nil)
    }

    @Test func keysAreComparedWithTheirEscapesResolved() {
        #expect(duplicate(#"{"a":1,"\u0061":2}"#) == "a")
        #expect(duplicate(#"{"tag":1,"t\u0061g":2}"#) == "tag")
        #expect(duplicate(#"{"a/b":1,"a\/b":2}"#) == "a/b")
        #expect(duplicate(#"{"q\"":1,"q\u0022":2}"#) == "q\"")
        #expect(duplicate(#"{"\n":1,"\u000a":2}"#) == "\n")
        #expect(duplicate(#"{"é":1,"\u00e9":2}"#) == "é")
        #expect(duplicate(#"{"😀":1,"\ud83d\ude00":2}"#) == "😀")
        #expect(duplicate(#"{"\uD83D\uDE00":1,"\ud83d\ude00":2}"#) == "😀")
        // Code points, not canonical equivalence: jsonb keeps both of these.
        #expect(duplicate(#"{"é":1,"e\u0301":2}"#) == nil)
        #expect(duplicate(#"{"\\u0061":1,"a":2}"#) == nil)
    }

    @Test func textThatIsNoJSONEndsTheScanWithoutAnAnswer() {
        // PostgreSQL refuses all of these (invalid_json); the scan must only not stop the server.
        for text in [
            #"{"a":1,"a"#, #"{"a\"#, #"{"\u00"#, #"{"\ud800":1,"\ud800":2}"#, #"{"\udc00":1}"#, #"{"\x":1,"\x":2}"#,
            "}}}]]", "{{{{", "\"\"\"", "\"", "{\"a\":1,",
        ] {
            _ = duplicate(text)
        }
        #expect(duplicate(#"{"\ud800":1,"\ud800":2}"#) == nil)
        #expect(duplicate(String(repeating: "[", count: 100_000)) == nil)
        #expect(duplicate(String(repeating: #"{"a":"#, count: 20_000) + "1" + String(repeating: "}", count: 20_000)) == nil)
    }

    @Test func aLargeBodyIsScannedInOnePass() {
        let items = (0..<20_000).map { #"{"id":"\#($0)","tag":"t"}"# }.joined(separator: ",")
        #expect(duplicate(#"{"sessions":[\#(items)]}"#) == nil)
        let keys = (0..<20_000).map { #""k\#($0)":1"# }.joined(separator: ",")
        #expect(duplicate("{\(keys),\"k19999\":2}") == "k19999")
    }

    @Test func aBodyThatSaysNothingIsEmptyOrAnObjectWithoutMembers() {
        for text in ["", " ", "\r\n", "{}", " { } ", "{\n}\n", "\t{\t}\t"] {
            #expect(JSONKeys.saysNothing(Array(text.utf8)), "\(text.debugDescription)")
        }
        for text in [#"{"coins":999}"#, "[]", "null", "0", "\"\"", "{ x }", "{}{}", "x", "{", "\u{00a0}{}"] {
            #expect(!JSONKeys.saysNothing(Array(text.utf8)), "\(text.debugDescription)")
        }
    }
}
