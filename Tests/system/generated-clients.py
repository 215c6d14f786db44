#!/usr/bin/env python3
"""generated-clients.py: the answers the standard generators' clients must decode (Tests/system/generated-clients.sh).

    generated-clients.py record BASE_URL DIR DB     real answers of a running server, plus three mutated
                                                    ones, as DIR/NAME.json, and DIR/manifest.json (DB: a URL
                                                    psql reads the mailed verification code with)
    generated-clients.py validate DOC STRICT DIR    each answer against its schema: the published document
                                                    takes all (it is open), the strict copy only the real
                                                    ones (run with .venv's python: jsonschema_rs)
    generated-clients.py python PACKAGE_DIR DIR     the generated Python client decodes each answer
    generated-clients.py swift-driver DIR           main.swift for the generated Swift client's decoder
    generated-clients.py ts-driver DIR              decode.ts for the generated TypeScript client

The manifest lists {name, schema, mutation, keep: [path, value]}: `keep` is a member the decoded value must
still hold (the unknown enum value, the unknown code), when the client's type keeps it. docs/versioning.md:
an extra field, a new enum value and a new error code are minor, so every client decodes all three.
"""

import json
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

EXTRA = "a_field_from_the_future"
UNKNOWN_KIND = "plant"
UNKNOWN_CODE = "a_code_from_the_future"


def call(base, method, path, body=None, token=None):
    request = urllib.request.Request(base + path, method=method,
                                     data=None if body is None else json.dumps(body).encode())
    request.add_header("Accept", "application/json")
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def record(base, folder, database):
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    answers = []

    def keep(name, schema, status, body, expected):
        if status != expected:
            sys.exit(f"record: {name} answered {status}, not {expected}: {body}")
        answers.append({"name": name, "schema": schema, "body": body})
        return body

    stamp = str(abs(hash(base)) % 10**9)
    keep("health", "Health", *call(base, "GET", "/health"), 200)
    ann = keep("register", "SignedIn", *call(base, "POST", "/auth/register", {
        "email": f"ann-{stamp}@example.com", "password": "correct horse", "display_name": "Ann"}), 201)["token"]
    bob = call(base, "POST", "/auth/register", {
        "email": f"bob-{stamp}@example.com", "password": "correct horse", "display_name": "Bob"})[1]["token"]
    # friend requests find verified emails only: Bob confirms the code mailed at sign-up (read from
    # the outbox, app.outgoing_mail, as the operator's mailer would send it)
    code = subprocess.run(["psql", "-X", "-qAt", database, "-c",
                           "select substring(body from 'Your code is ([0-9]{8})') from app.outgoing_mail "
                           f"where recipient = 'bob-{stamp}@example.com' order by id desc limit 1"],
                          check=True, capture_output=True, text=True).stdout.strip()
    if call(base, "POST", "/me/email/verify", {"code": code}, token=bob)[0] != 200:
        sys.exit("record: Bob's email could not be verified")
    keep("me", "Profile", *call(base, "GET", "/me", token=ann), 200)
    keep("shop_items", "Catalog", *call(base, "GET", "/shop/items", token=ann), 200)
    keep("me_items", "Inventory", *call(base, "GET", "/me/items", token=ann), 200)
    keep("me_tokens", "TokenList", *call(base, "GET", "/me/tokens", token=ann), 200)
    keep("session_start", "SessionStarted", *call(base, "POST", "/focus-sessions/start",
                                                     {"planned_minutes": 25}, token=ann), 201)
    keep("session_current", "SessionCurrent", *call(base, "GET", "/focus-sessions/current", token=ann), 200)
    keep("friend_request", "FriendRequestCreated", *call(base, "POST", "/friend-requests",
                                                         {"email": f"bob-{stamp}@example.com"}, token=ann), 201)
    keep("friend_requests", "FriendRequests", *call(base, "GET", "/friend-requests", token=bob), 200)
    keep("events", "Events", *call(base, "GET", "/events?after=0&wait=0", token=bob), 200)
    keep("leaderboard", "Leaderboard", *call(base, "GET", "/leaderboards/weekly?scope=global", token=ann), 200)
    keep("problem_unauthorized", "Problem", *call(base, "GET", "/me"), 401)
    keep("problem_not_found", "Problem", *call(base, "GET", "/users/00000000-0000-4000-8000-000000000000",
                                               token=ann), 404)
    events = next(a for a in answers if a["name"] == "events")["body"]["events"]
    if not any(e["type"] == "friend_request.received" for e in events):
        sys.exit(f"record: no friend_request.received event for the receiver: {events}")
    for answer in answers:
        answer["mutation"], answer["keep"] = None, None

    profile = json.loads(json.dumps(next(a for a in answers if a["name"] == "me")["body"]))
    profile[EXTRA] = {"nested": [1, 2]}
    catalog = json.loads(json.dumps(next(a for a in answers if a["name"] == "shop_items")["body"]))
    catalog["pets"][0]["kind"] = UNKNOWN_KIND
    problem = json.loads(json.dumps(next(a for a in answers if a["name"] == "problem_unauthorized")["body"]))
    problem["code"] = UNKNOWN_CODE
    problem["type"] = "urn:focus-island:problem:" + UNKNOWN_CODE
    answers += [
        {"name": "mutated_extra_field", "schema": "Profile", "body": profile, "mutation": "an extra field",
         "keep": None},
        {"name": "mutated_enum_value", "schema": "Catalog", "body": catalog, "mutation": "an unknown enum value",
         "keep": [["pets", 0, "kind"], UNKNOWN_KIND]},
        {"name": "mutated_error_code", "schema": "Problem", "body": problem, "mutation": "an unknown error code",
         "keep": [["code"], UNKNOWN_CODE]},
    ]
    for answer in answers:
        (folder / (answer["name"] + ".json")).write_text(json.dumps(answer["body"]))
    manifest = [{k: a[k] for k in ("name", "schema", "mutation", "keep")} for a in answers]
    (folder / "manifest.json").write_text(json.dumps(manifest, indent=1))
    real = sum(1 for a in answers if not a["mutation"])
    print(f"  recorded {real} real answers of {len({a['schema'] for a in answers})} schemas, and 3 mutated ones")


def manifest(folder):
    return json.loads((Path(folder) / "manifest.json").read_text())


def validator(document, schema_name):
    import jsonschema_rs  # noqa: PLC0415 (only in .venv)
    schema = {"$ref": f"#/components/schemas/{schema_name}", "components": document["components"]}
    return jsonschema_rs.Draft202012Validator(schema)


def validate(published, strict, folder):
    published, strict = json.loads(Path(published).read_text()), json.loads(Path(strict).read_text())
    failures = 0
    for entry in manifest(folder):
        body = json.loads((Path(folder) / (entry["name"] + ".json")).read_text())
        open_ok = validator(published, entry["schema"]).is_valid(body)
        strict_ok = validator(strict, entry["schema"]).is_valid(body)
        expected_strict = entry["mutation"] is None
        if not open_ok or strict_ok != expected_strict:
            failures += 1
            print(f"  FAILED {entry['name']} ({entry['schema']}): published {open_ok}, strict {strict_ok}")
    if failures:
        sys.exit(1)
    print("  schemas: the published document takes every answer; the strict copy the real ones and none of the 3 mutated")


def dig(value, path):
    for step in path:
        value = value[step] if isinstance(step, int) else (
            value[step] if isinstance(value, dict) else getattr(value, step))
    return value


def python_decode(package_dir, folder):
    package_dir = Path(package_dir)
    sys.path.insert(0, str(package_dir.parent))
    models = __import__(package_dir.name + ".models", fromlist=["models"])
    lines, failures = [], 0
    for entry in manifest(folder):
        body = json.loads((Path(folder) / (entry["name"] + ".json")).read_text())
        try:
            decoded = getattr(models, entry["schema"]).from_dict(body)
            outcome = "decoded"
            if entry["keep"]:
                kept = dig(decoded, [s if isinstance(s, int) else s for s in entry["keep"][0]])
                kept = getattr(kept, "value", kept)
                if kept != entry["keep"][1]:
                    raise ValueError(f"{entry['keep'][0]} is {kept!r}")
                outcome += f", {entry['keep'][1]!r} kept"
            if entry["name"] == "mutated_extra_field":
                outcome += ", the field kept in additional_properties" if EXTRA in decoded.additional_properties else ""
            if entry["name"] == "events":
                outcome += " (" + ", ".join(type(e).__name__ for e in decoded.events) + ")"
        except Exception as error:  # noqa: BLE001: the line says what broke
            failures += 1
            outcome = f"FAILED: {type(error).__name__}: {error}"
        if entry["mutation"]:
            lines.append(f"  python  {entry['mutation']:<22} ({entry['schema']}): {outcome}")
        elif outcome.startswith("FAILED"):
            lines.append(f"  python  {entry['name']} ({entry['schema']}): {outcome}")
    real = sum(1 for e in manifest(folder) if not e["mutation"])
    print(f"  python  {real} real answers: " + ("decoded" if not any("FAILED" in l and "mutat" not in l for l in lines) else "see below"))
    print("\n".join(lines))
    if failures:
        sys.exit(1)


def swift_driver(folder):
    entries = manifest(folder)
    cases = "\n".join(
        f'    case "{name}": return try decoder.decode({name}.self, from: data)'
        for name in sorted({e["schema"] for e in entries}))
    return f"""// The generated client (openapi-generator swift6) decodes each recorded answer (Tests/system/generated-clients.sh).
import FocusIslandAPI
import Foundation

func decode(_ schema: String, _ data: Data) throws -> Any {{
    let decoder = CodableHelper().jsonDecoder
    switch schema {{
{cases}
    default: throw CocoaError(.coderInvalidValue)
    }}
}}

func member(_ value: Any, _ path: [String]) -> String? {{
    var current: Any = value
    for step in path {{
        if let index = Int(step), let array = current as? [Any] {{
            current = array[index]
            continue
        }}
        guard let child = Mirror(reflecting: current).children.first(where: {{ $0.label == step }}) else {{ return nil }}
        current = child.value
        if let optional = current as? String? {{ current = optional as Any }}
    }}
    return current as? String ?? (current as? any RawRepresentable).map {{ "\\($0.rawValue)" }}
}}

let folder = URL(fileURLWithPath: CommandLine.arguments[1])
let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("manifest.json"))) as? [[String: Any]] ?? []
var failures = 0
var real = 0
for entry in manifest {{
    let name = entry["name"] as? String ?? ""
    let schema = entry["schema"] as? String ?? ""
    let mutation = entry["mutation"] as? String
    var outcome = "decoded"
    do {{
        let value = try decode(schema, Data(contentsOf: folder.appendingPathComponent(name + ".json")))
        if let keep = entry["keep"] as? [Any], let path = keep.first as? [Any], let expected = keep.last as? String {{
            let kept = member(value, path.map {{ "\\($0)" }})
            if kept == expected {{ outcome += ", \\"\\(expected)\\" kept" }} else {{ outcome = "FAILED: \\(path) is \\(kept ?? "nil")"; failures += 1 }}
        }}
    }} catch {{
        outcome = "FAILED: \\(error)"
        failures += 1
    }}
    if let mutation {{
        print("  swift6  \\(mutation.padding(toLength: 22, withPad: " ", startingAt: 0)) (\\(schema)): \\(outcome)")
    }} else {{
        real += 1
        if outcome != "decoded" {{ print("  swift6  \\(name) (\\(schema)): \\(outcome)") }}
    }}
}}
print("  swift6  \\(real) real answers: \\(failures == 0 ? "decoded" : "see above")")
exit(failures == 0 ? 0 : 1)
"""


def ts_driver(folder):
    entries = manifest(folder)
    names = sorted({e["schema"] for e in entries})
    imports = ", ".join(f"{n}FromJSON" for n in names)
    table = ",\n".join(f"    {n}: {n}FromJSON" for n in names)
    return f"""// The generated client (openapi-generator typescript-fetch) decodes each recorded answer (Tests/system/generated-clients.sh).
import {{ {imports} }} from "./models/index";
declare const require: (name: string) => any;
declare const process: {{ argv: string[]; exit(code: number): never }};
const fs = require("fs");
const folder: string = process.argv[2];
const decoders: {{ [schema: string]: (json: any) => any }} = {{
{table}
}};
const manifest: Array<{{ name: string; schema: string; mutation: string | null; keep: [Array<string | number>, string] | null }}> =
    JSON.parse(fs.readFileSync(folder + "/manifest.json", "utf8"));
let failures = 0;
let real = 0;
for (const entry of manifest) {{
    let outcome = "decoded";
    try {{
        const value = decoders[entry.schema](JSON.parse(fs.readFileSync(folder + "/" + entry.name + ".json", "utf8")));
        if (entry.keep) {{
            let kept: any = value;
            for (const step of entry.keep[0]) kept = kept[typeof step === "number" ? step : step.replace(/_([a-z])/g, (_: string, c: string) => c.toUpperCase())];
            if (kept === entry.keep[1]) outcome += `, "${{entry.keep[1]}}" kept`;
            else {{ outcome = `FAILED: ${{entry.keep[0].join(".")}} is ${{kept}}`; failures++; }}
        }}
    }} catch (error) {{
        outcome = `FAILED: ${{error}}`;
        failures++;
    }}
    if (entry.mutation) console.log(`  ts      ${{entry.mutation.padEnd(22)}} (${{entry.schema}}): ${{outcome}}`);
    else {{
        real++;
        if (outcome !== "decoded") console.log(`  ts      ${{entry.name}} (${{entry.schema}}): ${{outcome}}`);
    }}
}}
console.log(`  ts      ${{real}} real answers: ${{failures === 0 ? "decoded" : "see above"}}`);
process.exit(failures === 0 ? 0 : 1);
"""


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    command = argv[1]
    if command == "record" and len(argv) == 5:
        record(argv[2], argv[3], argv[4])
    elif command == "validate" and len(argv) == 5:
        validate(argv[2], argv[3], argv[4])
    elif command == "python" and len(argv) == 4:
        python_decode(argv[2], argv[3])
    elif command == "swift-driver":
        sys.stdout.write(swift_driver(argv[2]))
    elif command == "ts-driver":
        sys.stdout.write(ts_driver(argv[2]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv)
