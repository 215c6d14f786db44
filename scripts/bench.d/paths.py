#!/usr/bin/env python3
"""paths.py: each operation's path template, by operationId, from docs/openapi.json, as shell
lines `export BENCH_PATH_<operationId>=<template>`: the bench's cases name operations, so a
route's path is written in its SQL (api.endpoints) and the document generated from it only.

    eval "$(python3 scripts/bench.d/paths.py)"
"""
import json
import shlex
from pathlib import Path

DOCUMENT = Path(__file__).resolve().parent.parent.parent / "docs" / "openapi.json"

for path, item in json.loads(DOCUMENT.read_text())["paths"].items():
    for operation in item.values():
        if isinstance(operation, dict) and "operationId" in operation:
            print(f"export BENCH_PATH_{operation['operationId']}={shlex.quote(path)}")
