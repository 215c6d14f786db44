#!/usr/bin/env python3
"""endpoints.py: what the endpoints declared in SQL (api.endpoints, sql/api/001_endpoints.sql)
make of the server's route table and of docs/openapi.json.

    scripts/lib/endpoints.py write URL   rewrite Sources/FocusIsland/HTTP/Generated/Endpoints.swift
                                         and the generated parts of docs/openapi.json
    scripts/lib/endpoints.py check URL   one line per file or operation that `write` would change,
                                         and per operation still missing what a person writes; exit 1
                                         if any (scripts/lint)

URL: a migrated database (scripts/lint passes its own). Both files come out byte-identical on a
second run.

In docs/openapi.json each endpoint's operation is written from its row: the path and method,
operationId, x-sql-function, security, the path parameters (in place, a uuid unless the row's
`parameters` says otherwise), the Idempotency-Key parameter (a volatile POST or DELETE of JSON:
what api.idempotent keeps), Accept-Language and the answers' Content-Language and Vary (localized
routes), and every problem answer (status 400 and up) from the row's `errors` and the codes every
route of its kind may answer (`generic_codes`). A status whose codes are exactly a shared answer's
(components.responses) refers to it. An operation whose endpoint is gone is removed. What a
person writes is kept as it is: summary, description, requestBody, success answers (with their
examples), query and header parameters, and a problem answer's recorded example. Then the
document goes through scripts/lib/contract.py's rewrite, so it is in the form lint checks.

Each code's status is read from docs/errors.md's table (the registry of codes).
Python's standard library, and psql.
"""

import json
import re
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import contract  # noqa: E402  (scripts/lib, beside this file)

ROOT = Path(__file__).resolve().parent.parent.parent
SWIFT = ROOT / "Sources" / "FocusIsland" / "HTTP" / "Generated" / "Endpoints.swift"
DOCUMENT = ROOT / "docs" / "openapi.json"
ERRORS = ROOT / "docs" / "errors.md"
UUID = {"type": "string", "format": "uuid"}
# Operations the server answers without an endpoint row (Routes.swift's service routes).
SERVICE_OPERATIONS = {("/health", "get"), ("/ready", "get"), ("/openapi.json", "get")}
ROWS = """
select coalesce(json_agg(json_build_object(
           'method', e.method, 'path', e.path, 'function', 'api.' || p.proname,
           'operation_id', coalesce(e.operation_id, p.proname), 'access', e.access, 'status', e.status,
           'body', e.body, 'body_limit', e.body_limit, 'response', e.response, 'reads', e.reads,
           'admission', e.admission, 'localized', e.localized, 'errors', to_json(e.errors),
           'parameters', e.parameters, 'volatile', p.provolatile = 'v',
           'arguments', oidvectortypes(p.proargtypes), 'returns', p.prorettype::regtype::text)
           order by e.path, e.method), '[]')
from api.endpoints e
join pg_proc p on p.oid = e.function
"""


def endpoints(url):
    """The rows of api.endpoints, with what the catalog says of each function."""
    text = subprocess.run(
        ["psql", "-X", "-q", "-At", "-v", "ON_ERROR_STOP=1", url, "-c", ROWS],
        check=True, capture_output=True, text=True).stdout
    return json.loads(text)


def statuses():
    """Each code's status, from docs/errors.md's table: | `code` | status | when | extra |."""
    found = {}
    for line in ERRORS.read_text().splitlines():
        match = re.match(r"^\| `([a-z_]+)` \| (\d{3}) \|", line)
        if match:
            found[match.group(1)] = int(match.group(2))
    return found


def keyed(row):
    """Whether the route runs under an Idempotency-Key (Route.statement, api.idempotent)."""
    return (row["method"] in ("POST", "DELETE") and row["body"] != "image" and row["response"] == "json"
            and row["volatile"])


def generic_codes(row, shared):
    """The codes every route of this kind may answer, whatever its function does."""
    codes = {"request_timeout", "header_too_large", "internal_error", "body_too_large"}
    codes |= set(shared["Unavailable"])
    if row["access"] == "bearer":
        codes.add("unauthorized")
    if row["admission"] == "controlled":
        codes.add("upgrade_required")
    if row["body"] in ("json", "optional_json"):
        codes |= {"unsupported_media_type", "duplicate_key", "invalid_json"}
    if row["body"] == "none":
        codes.add("body_not_allowed")
    if keyed(row):
        codes.add("idempotency_key_reused")
    return codes


def parameter_names(path):
    return re.findall(r"\{([a-z_]+)\}", path)


def sort_key(row):
    """Most specific first: at each segment a literal before a parameter (Router takes the first)."""
    segments = row["path"].split("/")[1:]
    return ([(s.startswith("{"), s) for s in segments], row["method"])


def swift_route(row):
    arguments = [f'"{row["method"]}"', f'"{row["path"]}"', f'.sql("{row["function"]}")']
    if row["access"] == "public":
        arguments.append("access: .public")
    if row["status"] != 200:
        arguments.append(f"status: {row['status']}")
    if row["body"] != "none":
        arguments.append("body: " + {"json": ".json", "optional_json": ".optionalJSON", "image": ".image"}[row["body"]])
    if row["body_limit"] is not None:
        arguments.append(f"bodyLimit: {row['body_limit']}")
    if row["response"] == "file":
        arguments.append("response: .file")
    reads = row["reads"]
    if reads == "replica":
        arguments.append("reads: .replica")
    elif reads != "primary":
        name, value = reads.removeprefix("replica when ").split("=")
        arguments.append(f'reads: .replicaWhen(parameter: "{name}", is: "{value}")')
    if row["admission"] == "always":
        arguments.append("admission: .always")
    return "Route(" + ", ".join(arguments) + ")"


def swift(rows):
    """The route table of every endpoint, and the set of localized functions."""
    routes = "\n".join(f"        {swift_route(row)}," for row in sorted(rows, key=sort_key))
    localized = sorted({row["function"] for row in rows if row["localized"]})
    localized_lines = "\n".join(f'        "{function}",' for function in localized)
    return f"""// Code generated by scripts/lint --update from api.endpoints (sql/api). DO NOT EDIT.
// swift-format-ignore-file
// Every route answered by one function in schema api, as its SQL declares it
// (sql/api/001_endpoints.sql); Routes.swift adds the routes the server answers itself.

extension Routes {{
    /// Most specific path first: at each segment a literal before a parameter.
    static let endpoints: [Route] = [
{routes}
    ]

    /// Functions whose answers hold item or tip text: the pipeline negotiates their language
    /// from Accept-Language, their statement sets it for SQL (api.use_language), and they answer
    /// with Content-Language and Vary: Accept-Language (docs/languages.md).
    public static let localized: Set<String> = [
{localized_lines}
    ]
}}
"""


def in_order_of(before, after):
    """`after` with the keys `before` also has in its order (a second run changes nothing, and a
    first run moves no line a person wrote)."""
    ordered = {key: after[key] for key in before if key in after}
    ordered.update((key, value) for key, value in after.items() if key not in ordered)
    return ordered


def path_parameter(name, declared):
    parameter = {"name": name, "in": "path", "required": True, "schema": declared.get("schema", UUID)}
    if "description" in declared:
        parameter["description"] = declared["description"]
    return parameter


def parameters(operation, row):
    """Path parameters in place (new ones first), then what a person wrote, then the generated
    headers, each where it already stood."""
    names = parameter_names(row["path"])
    made = {name: path_parameter(name, row["parameters"].get(name, {})) for name in names}
    wanted_refs = set()
    if keyed(row):
        wanted_refs.add("#/components/parameters/IdempotencyKey")
    if row["localized"]:
        wanted_refs.add("#/components/parameters/AcceptLanguage")
    generated_refs = {"#/components/parameters/IdempotencyKey", "#/components/parameters/AcceptLanguage"}
    result, placed = [], set()
    for parameter in operation.get("parameters", []):
        if parameter.get("in") == "path":
            if parameter["name"] in made:
                fresh = made[parameter["name"]]
                if parameter.get("schema") == fresh["schema"]:  # jsonb reorders keys; keep the written order
                    fresh["schema"] = parameter["schema"]
                result.append(in_order_of(parameter, fresh))
                placed.add(parameter["name"])
        elif parameter.get("$ref") in generated_refs:
            if parameter["$ref"] in wanted_refs:
                result.append(parameter)
                placed.add(parameter["$ref"])
        else:
            result.append(parameter)
    result = [made[name] for name in names if name not in placed] + result
    result += [{"$ref": ref} for ref in sorted(wanted_refs) if ref not in placed]
    return result


def problem_answers(operation, row, codes_by_status, shared):
    """The responses with each problem status made from its codes, in the order they stood."""
    old = operation.get("responses", {})
    made = {}
    for status, codes in codes_by_status.items():
        codes = sorted(codes)
        reference = next((name for name, members in shared.items() if sorted(members) == codes), None)
        if reference:
            made[str(status)] = {"$ref": f"#/components/responses/{reference}"}
            continue
        before = old.get(str(status), {})
        # What a person wrote beside the codes stays while the codes do: a longer description,
        # a recorded example of one of them, headers (Retry-After).
        same = sorted(before.get("x-problem-codes", [])) == codes
        answer = {"description": before["description"] if same else ", ".join(codes),
                  "content": {"application/problem+json": {"schema": {"$ref": contract.PROBLEM}}},
                  "x-problem-codes": codes}
        example = before.get("content", {}).get("application/problem+json", {}).get("example")
        if example is not None and example.get("code") in codes:
            answer["content"]["application/problem+json"]["example"] = example
        if "headers" in before:
            answer["headers"] = before["headers"]
        made[str(status)] = in_order_of(before, answer)
        continue
    responses = {}
    for status, answer in old.items():
        if int(status) < 400:
            responses[status] = answer
        elif status in made:
            responses[status] = made.pop(status)
    for status in sorted(made):
        responses[status] = made[status]
    return responses


def localized_headers(responses, localized):
    for status, answer in responses.items():
        if not status.startswith("2") or "$ref" in answer:
            continue
        headers = answer.setdefault("headers", {})
        for name in ("Content-Language", "Vary"):
            reference = {"$ref": f"#/components/headers/{name.replace('-', '')}"}
            if localized:
                headers.setdefault(name, reference)
            elif headers.get(name) == reference:
                del headers[name]
        if not headers:
            del answer["headers"]


def document(old, rows, code_status):
    """docs/openapi.json with every endpoint's generated parts written from its row."""
    new = json.loads(json.dumps(old))
    shared = {name: answer["x-problem-codes"] for name, answer in new["components"]["responses"].items()
              if "x-problem-codes" in answer}
    declared = {(row["path"], row["method"].lower()) for row in rows}
    for path in list(new["paths"]):
        for method in list(new["paths"][path]):
            if (path, method) not in declared and (path, method) not in SERVICE_OPERATIONS:
                del new["paths"][path][method]
        if not new["paths"][path]:
            del new["paths"][path]
    for row in rows:
        operation = new["paths"].setdefault(row["path"], {}).setdefault(row["method"].lower(), {})
        operation["operationId"] = row["operation_id"]
        operation["x-sql-function"] = row["function"]
        operation["security"] = [] if row["access"] == "public" else [{"bearer": []}]
        operation["parameters"] = parameters(operation, row)
        if not operation["parameters"]:
            del operation["parameters"]
        by_status = {}
        for code in set(row["errors"]) | generic_codes(row, shared):
            by_status.setdefault(code_status[code], set()).add(code)
        operation["responses"] = problem_answers(operation, row, by_status, shared)
        localized_headers(operation["responses"], row["localized"])
    return contract.rewrite(new)


def findings(rows, written):
    """What a person must still do: a function of another shape, an operation without a summary
    or a success answer, an operationId twice (a code the registry lacks stops main before)."""
    found = []
    for row in rows:
        where = f"{row['method']} {row['path']}"
        if row["arguments"] not in ("text, jsonb, jsonb", "text, jsonb, bytea"):
            found.append(f"{where}: {row['function']}({row['arguments']}) is not an endpoint's shape")
        operation = written["paths"][row["path"]][row["method"].lower()]
        if not any(status[0] in "23" for status in operation["responses"]):
            found.append(f"{where}: no success answer in docs/openapi.json; write it (and a summary) by hand")
        if not operation.get("summary"):
            found.append(f"{where}: no summary in docs/openapi.json; write one")
    ids = [row["operation_id"] for row in rows]
    found += [f"operationId {name} is declared twice in api.endpoints" for name in sorted({i for i in ids if ids.count(i) > 1})]
    return found


def main(argv):
    if len(argv) != 3 or argv[1] not in ("write", "check"):
        sys.exit(__doc__)
    rows = endpoints(argv[2])
    code_status = statuses()
    problems = [f"{row['method']} {row['path']}: error code {code} is not in docs/errors.md's table"
                for row in rows for code in row["errors"] if code not in code_status]
    if problems:
        sys.exit("\n".join(problems))
    old_text = DOCUMENT.read_text()
    written = document(json.loads(old_text), rows, code_status)
    files = {SWIFT: swift(rows), DOCUMENT: contract.dump(written)}
    if argv[1] == "write":
        SWIFT.parent.mkdir(parents=True, exist_ok=True)
        for path, text in files.items():
            if not path.exists() or path.read_text() != text:
                path.write_text(text)
        for finding in findings(rows, written):
            print(finding)
        return
    out = []
    for path, text in files.items():
        if not path.exists() or path.read_text() != text:
            out.append(f"{path.relative_to(ROOT)}: not what api.endpoints makes of it (scripts/lint --update)")
    out += findings(rows, written)
    for line in out:
        print(line)
    sys.exit(1 if out else 0)


if __name__ == "__main__":
    main(sys.argv)
