#!/usr/bin/env python3
"""The map of the code in README.md agrees with the tree (run by scripts/lint).

The map is the first ``` block under "## The map of the code": each line that does not start
with a space names one path in its first column (a folder ends with "/"); indented lines carry
on the description above. Findings, one a line (none: the map is true):
  - a path the map names that does not exist;
  - a folder at one of LEVELS that the map does not name (a folder counts as named when the
    map names it or anything inside it).
Folders are those holding a file git tracks or would track (ignored build output never counts).
"""
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
HEADING = "## The map of the code"
# The folders whose children must each have a line ("" is the top of the repository).
LEVELS = ["", "Sources", "Sources/FocusIsland", "Tests", "Client/Sources", "Client/Tests", "sql", "scripts"]


def map_paths(readme: str) -> list[str]:
    after = readme.split("\n" + HEADING + "\n", 1)
    if len(after) != 2:
        sys.exit(f"README.md has no heading {HEADING!r}")
    block = after[1].split("```\n", 1)[1].split("```", 1)[0]
    return [line.split()[0] for line in block.splitlines() if line.strip() and not line[0].isspace()]


def tree_folders() -> set[str]:
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
                            check=True, capture_output=True, text=True).stdout
    folders = set()
    for path in filter(None, listed.split("\0")):
        if not (ROOT / path).exists():
            continue  # deleted in the work tree, not yet in the index
        parts = path.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            folders.add("/".join(parts[:depth]))
    return folders


def main() -> None:
    named = map_paths((ROOT / "README.md").read_text(encoding="utf-8"))
    for path in named:
        target = ROOT / path.rstrip("/")
        if not (target.is_dir() if path.endswith("/") else target.exists()):
            print(f"README.md's map names {path}, which does not exist")
    named_folders = {p.rstrip("/") for p in named}
    covered = set()
    for folder in named_folders:
        parts = folder.split("/")
        covered.update("/".join(parts[:depth]) for depth in range(1, len(parts) + 1))
    for folder in sorted(tree_folders()):
        parent = folder.rpartition("/")[0]
        if parent in LEVELS and folder not in covered:
            print(f"{folder}/ is missing from README.md's map of the code")


if __name__ == "__main__":
    main()
