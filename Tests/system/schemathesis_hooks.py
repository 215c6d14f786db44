"""schemathesis_hooks.py: makes schemathesis send Idempotency-Key as a client does, a new key per
request. Loaded with SCHEMATHESIS_HOOKS=schemathesis_hooks (PYTHONPATH=Tests/system) for a run
against the published document, which declares the header (the strict copy leaves it out).

A fuzzer draws keys from a small space ("0", "00", ...) and sends one key with two different
bodies, which the server answers 422 idempotency_key_reused by design (docs/api-guide.md,
"Retries"): a finding about the fuzzer, not the server. A key the fuzzer drew well-formed is
replaced by a fresh one; a malformed key is sent as drawn, so its 400 invalid_field is still
tested. Python's standard library and schemathesis only.
"""

import re
import uuid

import schemathesis

WELL_FORMED = re.compile(r"^[\x21-\x7e]{1,255}$")


@schemathesis.hook
def before_call(context, case, kwargs):
    headers = case.headers
    if not headers:
        return
    for name in list(headers):
        if name.lower() == "idempotency-key" and isinstance(headers[name], str) and WELL_FORMED.match(headers[name]):
            headers[name] = "st-" + uuid.uuid4().hex
            # The case stays what it was generated as: schemathesis re-labels a case whose headers
            # a hook changed, and would then put the run's Authorization back on a case made to
            # test its absence (and expect the 401 it no longer gets).
            sync = getattr(case, "_sync_validated_hashes", None)
            if sync is not None:
                sync()
