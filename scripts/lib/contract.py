#!/usr/bin/env python3
"""contract.py: normalises docs/openapi.json into the form standard generators read cleanly, checks
that it is in that form, and derives the strict copy schemathesis tests the server against.

    scripts/lib/contract.py rewrite [FILE]   normalise FILE (default docs/openapi.json) in place;
                                             idempotent: a second run changes nothing
    scripts/lib/contract.py check [FILE]     one line per place the rewrite would change, and per
                                             form it cannot fix by itself; exit 1 if any (scripts/lint)
    scripts/lib/contract.py strict [FILE]    the strict copy on stdout (Tests/system/schemathesis.sh)

The published document is open, as docs/versioning.md promises clients: answers may gain fields,
enum values and error codes in a minor version. The strict copy says exactly what today's server
sends, so schemathesis still fails on a field, value or code the document lacks.

What `rewrite` does (each rule is a pure function of the document, so re-running it on a merged
document written in the older style gives the same result as writing it in this style by hand):
  1. a problem answer `allOf: [Problem, {properties: {code: {enum}, status: {const}}}]` becomes
     `$ref: Problem`, its codes listed on the response object as `x-problem-codes` (Problem.code
     is an open string: a new code is minor; the strict copy puts the enum and the status back);
  2. `const: V` becomes `{type: T, enum: [V]}`;
  3. in every schema an answer reaches: `additionalProperties: false` goes (the strict copy adds
     it back to every object with properties), and a string enum of two or more values becomes
     `x-extensible-enum` (an open set: clients keep an unknown value; the strict copy closes it);
  4. a nullable reference or object `oneOf: [X, {type: null}]` becomes `anyOf: [X, {type: null}]`
     (`oneOf` is kept for unions, which need a discriminator; a nullable primitive is a type array);
  5. `Idempotency-Key` is declared (components.parameters.IdempotencyKey: the rule of
     sql/api/002_idempotency.sql, 1 to 255 visible ASCII characters) on every operation that may
     answer 422 idempotency_key_reused, i.e. every one the server runs under the key, and each of
     them documents the malformed key's 400 invalid_field: its own 400 lists the code, or it
     refers to components.responses.InvalidIdempotencyKey;
  6. `X-Request-Id` is declared (components.headers.XRequestId) on every answer (a request may
     send its own: the server echoes a well-formed one; info.description says so).
  7. request schemas' free-text strings refuse NUL (jsonb cannot hold U+0000);
  8. every operation documents the 400 its body's form may get (Pipeline.checkBody, one rule for
     every route): one without a `requestBody` (OpenAPIContractTests holds it to the route
     table's `Route.body`) answers a body that says something 400 body_not_allowed; one taking
     JSON answers a key written twice in one object 400 duplicate_key, and text that is no JSON
     object 400 invalid_json. The codes join the operation's own 400 (one taken from
     components.responses is copied in), or make one. Applied before rule 5, so that rule finds
     each keyed operation's own 400. And every operation documents 413 body_too_large
     (components.responses.BodyTooLarge): the body limit holds on every route, one that takes
     no body included (a body over it is refused by its size before its presence).
The rules never look inside an `example` (answers recorded by scripts/lib/record-examples.py: data, not
schema), so the rewrite keeps them as they are.
Python's standard library only.
"""

import copy
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
DOCUMENT = ROOT / "docs" / "openapi.json"
PROBLEM = "#/components/schemas/Problem"
METHODS = ("get", "put", "post", "delete", "patch")

IDEMPOTENCY_KEY = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "description": "Makes a retry safe: the same key and request replay the first answer (status, body, ETag, "
    "Retry-After) without doing the work again; the same key with another route or body is 422 "
    "idempotency_key_reused; a malformed key is 400 invalid_field (field: Idempotency-Key). Keys are per user "
    "(per email on register, login and password reset) and kept 24 hours.",
    "schema": {"type": "string", "minLength": 1, "maxLength": 255, "pattern": "^[\\x21-\\x7e]{1,255}$"},
}
INVALID_IDEMPOTENCY_KEY = {
    "description": "invalid_field: the Idempotency-Key is not 1 to 255 visible ASCII characters (field: Idempotency-Key)",
    "content": {"application/problem+json": {"schema": {"$ref": PROBLEM}}},
    "x-problem-codes": ["invalid_field"],
}
REQUEST_ID_HEADER = {
    "description": "The request's id (the one sent, or one the server made), as in the server's log line.",
    "required": True,
    "schema": {"type": "string", "minLength": 1, "maxLength": 128},
}


def load(path):
    return json.loads(Path(path).read_text())


def dump(document):
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def operations(document):
    for path, item in document.get("paths", {}).items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method]


def responses(document):
    """Every response object, inline ones and components.responses (not $refs to them)."""
    for _, _, operation in operations(document):
        for response in operation.get("responses", {}).values():
            if "$ref" not in response:
                yield response
    yield from document.get("components", {}).get("responses", {}).values()


def resolve_response(document, response):
    ref = response.get("$ref", "")
    if ref.startswith("#/components/responses/"):
        return document["components"]["responses"][ref.rsplit("/", 1)[1]]
    return response


def walk(node, visit):
    """Calls visit(dict) on every object below node, children after parents; not inside an
    `example` (a recorded answer: its keys are data, not schema keywords)."""
    if isinstance(node, dict):
        visit(node)
        for key, value in list(node.items()):
            if key != "example":
                walk(value, visit)
    elif isinstance(node, list):
        for value in node:
            walk(value, visit)


def schema_refs(node):
    found = set()
    walk(node, lambda o: found.add(o["$ref"].rsplit("/", 1)[1])
         if isinstance(o.get("$ref"), str) and o["$ref"].startswith("#/components/schemas/") else None)
    return found


def answer_schemas(document):
    """Names of the component schemas an answer reaches (following $refs)."""
    schemas = document.get("components", {}).get("schemas", {})
    todo = set()
    for response in responses(document):
        todo |= schema_refs(response.get("content", {}))
    seen = set()
    while todo:
        name = todo.pop()
        if name in seen or name not in schemas:
            continue
        seen.add(name)
        todo |= schema_refs(schemas[name])
    return seen


def answer_roots(document):
    """The schema objects an answer reaches: its component schemas and the inline answer schemas."""
    schemas = document.get("components", {}).get("schemas", {})
    roots = [schemas[name] for name in sorted(answer_schemas(document))]
    for response in responses(document):
        for media in response.get("content", {}).values():
            if "schema" in media:
                roots.append(media["schema"])
    return roots


def problem_overlay(schema):
    """The codes of an old-style problem overlay, or None if schema is not one."""
    parts = schema.get("allOf")
    if not isinstance(parts, list) or not parts or parts[0] != {"$ref": PROBLEM}:
        return None
    codes = []
    for part in parts[1:]:
        code = part.get("properties", {}).get("code", {})
        codes += code.get("enum", []) + ([code["const"]] if "const" in code else [])
    return codes


def const_to_enum(node):
    if "const" in node:
        value = node.pop("const")
        if "type" not in node and not isinstance(value, (dict, list)) and value is not None:
            node["type"] = ("boolean" if isinstance(value, bool) else "integer" if isinstance(value, int)
                            else "number" if isinstance(value, float) else "string")
        node["enum"] = [value]


def is_nullable_ref(node):
    options = node.get("oneOf")
    return (isinstance(options, list) and len(options) == 2
            and sum(1 for o in options if o == {"type": "null"}) == 1
            and all(isinstance(o, dict) for o in options))


def open_answer(node):
    if node.get("additionalProperties") is False:
        del node["additionalProperties"]
    values = node.get("enum")
    types = node.get("type") if isinstance(node.get("type"), list) else [node.get("type")]
    if isinstance(values, list) and "string" in types:
        known = [v for v in values if v is not None]
        if len(known) >= 2:
            del node["enum"]
            node["x-extensible-enum"] = known


def rewrite(document):
    document = copy.deepcopy(document)
    components = document.setdefault("components", {})
    # 1. problem overlays
    for response in responses(document):
        media = response.get("content", {}).get("application/problem+json")
        if media is None:
            continue
        codes = problem_overlay(media.get("schema", {}))
        if codes is not None:
            media["schema"] = {"$ref": PROBLEM}
            response["x-problem-codes"] = sorted(set(codes) | set(response.get("x-problem-codes", [])))
    # 2. const
    walk(document, const_to_enum)
    # 3. open answers
    for root in answer_roots(document):
        walk(root, open_answer)
    # 4. nullable references
    def nullable(node):
        if is_nullable_ref(node):
            node["anyOf"] = node.pop("oneOf")
    walk(document, nullable)
    # 8. the body's form (before 5, which then finds an operation's own 400)
    for _, _, operation in operations(document):
        body_form_codes(document, operation)
    # 5 and 6. declared headers
    parameters = components.setdefault("parameters", {})
    parameters["IdempotencyKey"] = IDEMPOTENCY_KEY
    components.setdefault("headers", {})["XRequestId"] = REQUEST_ID_HEADER
    for _, _, operation in operations(document):
        if not any("idempotency_key_reused" in resolve_response(document, r).get("x-problem-codes", [])
                   for r in operation.get("responses", {}).values()):
            continue
        listed = operation.setdefault("parameters", [])
        if not any(p.get("name") == "Idempotency-Key" or p.get("$ref") == "#/components/parameters/IdempotencyKey"
                   for p in listed):
            listed.append({"$ref": "#/components/parameters/IdempotencyKey"})
    for _, _, operation in operations(document):  # a malformed key is 400 invalid_field
        if not any(p.get("$ref") == "#/components/parameters/IdempotencyKey" or p.get("name") == "Idempotency-Key"
                   for p in operation.get("parameters", [])):
            continue
        answers = operation.setdefault("responses", {})
        if "400" not in answers:
            responses_ = components.setdefault("responses", {})
            if "InvalidIdempotencyKey" not in responses_:
                responses_["InvalidIdempotencyKey"] = copy.deepcopy(INVALID_IDEMPOTENCY_KEY)
            answers["400"] = {"$ref": "#/components/responses/InvalidIdempotencyKey"}
            operation["responses"] = dict(sorted(answers.items()))  # statuses in order, as written
        elif "$ref" not in answers["400"]:
            codes = answers["400"].setdefault("x-problem-codes", [])
            if "invalid_field" not in codes:
                answers["400"]["x-problem-codes"] = sorted(codes + ["invalid_field"])
    if not any(r.get("$ref") == "#/components/responses/InvalidIdempotencyKey"
               for _, _, operation in operations(document) for r in operation.get("responses", {}).values()):
        components.get("responses", {}).pop("InvalidIdempotencyKey", None)  # every keyed operation has its own 400
    for response in responses(document):
        headers = response.setdefault("headers", {})
        headers.setdefault("X-Request-Id", {"$ref": "#/components/headers/XRequestId"})
    # 7. no NUL in a request's text: PostgreSQL's jsonb cannot hold U+0000, so the server
    # answers a body holding one 400 invalid_json whatever the field; the request schemas say so.
    for name in request_body_schemas(document):
        walk(components["schemas"][name], no_nul)
    return document


def body_codes(operation):
    """The 400 codes an operation's body's form may get: none may be sent where the operation
    takes none; JSON must be an object without a repeated key; an image is refused by type (415)."""
    body = operation.get("requestBody")
    if body is None:
        return ["body_not_allowed"]
    if "application/json" in body.get("content", {}):
        return ["duplicate_key", "invalid_json"]
    return []


def body_form_codes(document, operation):
    """Rule 8 on one operation: its 400 lists body_codes(operation); it has a 413."""
    answers = operation.setdefault("responses", {})
    if "413" not in answers and "BodyTooLarge" in document.get("components", {}).get("responses", {}):
        answers["413"] = {"$ref": "#/components/responses/BodyTooLarge"}
        operation["responses"] = answers = dict(sorted(answers.items()))
    wanted = body_codes(operation)
    if not wanted:
        return
    if "400" not in answers:
        answers["400"] = {"description": ", ".join(wanted),
                          "content": {"application/problem+json": {"schema": {"$ref": PROBLEM}}},
                          "x-problem-codes": wanted}
        operation["responses"] = dict(sorted(answers.items()))  # statuses in order, as written
        return
    if "$ref" in answers["400"]:
        answers["400"] = copy.deepcopy(resolve_response(document, answers["400"]))
    response = answers["400"]
    codes = response.setdefault("x-problem-codes", [])
    missing = [code for code in wanted if code not in codes]
    if not missing:
        return
    description = response.get("description", "")
    if description == ", ".join(codes):
        response["description"] = ", ".join(sorted(codes + missing))
    else:
        response["description"] = description + "; " + ", ".join(missing)
    response["x-problem-codes"] = sorted(codes + missing)


NO_NUL = "^[^\\x00]*$"
NOT_BLANK_NO_NUL = "^[^\\x00]*[^\\x00 ][^\\x00]*$"


def request_body_schemas(document):
    """The component schemas request bodies name (directly or through oneOf/anyOf)."""
    names = set()
    for _, _, operation in operations(document):
        for media in operation.get("requestBody", {}).get("content", {}).values():
            names |= schema_refs(media.get("schema", {}))
    while True:  # and the schemas those name
        more = set().union(*(schema_refs(document["components"]["schemas"][name]) for name in names)) - names
        if not more:
            return sorted(names)
        names |= more


def no_nul(node):
    """A free-text string (no enum, format or pattern that already keeps NUL out) refuses it."""
    if not isinstance(node, dict) or node.get("type") not in ("string", ["string", "null"]):
        return
    if "enum" in node or "format" in node:
        return
    pattern = node.get("pattern")
    if pattern is None:
        node["pattern"] = NO_NUL
    elif pattern == "[^ ]":
        node["pattern"] = NOT_BLANK_NO_NUL


def told_apart_by_keys(document, members):
    """True when every member is a $ref to an object schema with a required key no other member
    requires: a decoder picks the member by which key is present (a wire form that predates the
    document, like the original app's tip sync, has no common property to name in a discriminator)."""
    schemas = document.get("components", {}).get("schemas", {})
    required = []
    for member in members:
        name = member.get("$ref", "").rsplit("/", 1)[-1]
        if set(member) != {"$ref"} or name not in schemas:
            return False
        required.append(set(schemas[name].get("required", [])))
    return all(keys - set().union(*(other for j, other in enumerate(required) if j != i))
               for i, keys in enumerate(required))


def discriminator_findings(document):
    """oneOf unions that neither name a discriminator nor are told apart by a required key of
    each member (the rewrite cannot invent either: fix by hand)."""
    findings = []

    def visit(node, where):
        if isinstance(node, dict):
            if isinstance(node.get("oneOf"), list) and "discriminator" not in node \
                    and not told_apart_by_keys(document, node["oneOf"]):
                findings.append(f"{where}: a oneOf without a discriminator (give its members a common "
                                "`type` property named in `discriminator`, or make each a $ref with a required key of its own)")
            for key, value in node.items():
                if key != "example":
                    visit(value, f"{where}/{key}")
        elif isinstance(node, list):
            for index, value in enumerate(node):
                visit(value, f"{where}/{index}")

    visit(document, "#")
    return findings


def differences(old, new, where="#"):
    if isinstance(old, dict) and isinstance(new, dict):
        found = []
        for key in list(old) + [k for k in new if k not in old]:
            if key not in new:
                found.append(f"{where}/{key}: removed by the rewrite")
            elif key not in old:
                found.append(f"{where}/{key}: added by the rewrite")
            else:
                found += differences(old[key], new[key], f"{where}/{key}")
        return found
    if old != new:
        return [f"{where}: changed by the rewrite"]
    return []


def strict(document):
    """The strict copy: closed answers, closed enums, each problem answer's codes and status."""
    document = rewrite(document)
    roots = answer_roots(document)

    def close(node):
        if "properties" in node and "additionalProperties" not in node:
            node["additionalProperties"] = False
        if "x-extensible-enum" in node:
            values = node.pop("x-extensible-enum")
            types = node.get("type") if isinstance(node.get("type"), list) else [node.get("type")]
            node["enum"] = values + ([None] if "null" in types else [])
    for root in roots:
        walk(root, close)

    def tag(node):  # each member of a discriminated union says its own tag
        mapping = node.get("discriminator", {}).get("mapping", {})
        for value, ref in mapping.items():
            member = document["components"]["schemas"][ref.rsplit("/", 1)[1]]
            member["properties"][node["discriminator"]["propertyName"]] = {"type": "string", "enum": [value]}
    walk(document, tag)
    # Idempotency-Key stays out of the strict copy: a fuzzer sending one key with two bodies gets
    # 422 idempotency_key_reused by design, and the header's rules have their own HTTP tests.
    for _, _, operation in operations(document):
        operation["parameters"] = [p for p in operation.get("parameters", [])
                                   if p.get("$ref") != "#/components/parameters/IdempotencyKey"]
    every_code = sorted({code for r in responses(document) for code in r.get("x-problem-codes", [])})
    document["components"]["schemas"]["Problem"]["properties"]["code"]["enum"] = every_code
    for path, method, operation in operations(document):
        for status, response in operation.get("responses", {}).items():
            resolved = resolve_response(document, response)
            codes = resolved.get("x-problem-codes")
            media = resolved.get("content", {}).get("application/problem+json")
            if codes is None or media is None:
                continue
            response = copy.deepcopy(resolved)
            response["content"]["application/problem+json"]["schema"] = {"allOf": [
                {"$ref": PROBLEM},
                {"properties": {"code": {"type": "string", "enum": codes},
                                "status": {"type": "integer", "enum": [int(status)]}}}]}
            operation["responses"][status] = response
    return document


def main(argv):
    if len(argv) < 2 or argv[1] not in ("rewrite", "check", "strict"):
        sys.exit(__doc__)
    path = Path(argv[2]) if len(argv) > 2 else DOCUMENT
    document = load(path)
    if argv[1] == "rewrite":
        text = dump(rewrite(document))
        if path.read_text() != text:
            path.write_text(text)
    elif argv[1] == "strict":
        sys.stdout.write(dump(strict(document)))
    else:
        findings = differences(document, rewrite(document))
        if findings:
            findings.append(f"(fix: scripts/lib/contract.py rewrite; {len(findings)} places)")
        findings += discriminator_findings(document)
        if path.read_text() != dump(document):
            findings.append(f"{path.name}: not in the rewrite's layout (2-space JSON); run scripts/lib/contract.py rewrite")
        for finding in findings[:40]:
            print(finding)
        if len(findings) > 40:
            print(f"... and {len(findings) - 40} more")
        sys.exit(1 if findings else 0)


if __name__ == "__main__":
    main(sys.argv)
