"""Writes a known-answer file, or checks that the committed one is what the script computes.

Every independent implementation here ends the same way: it builds its document from the
specification alone, then either writes it (no argument) or, with --check (as `make test` runs it),
fails when the committed file differs. Only this file handling is shared; each script's encoding
and cryptography stay its own, so the scripts remain independent of each other and of the Swift code.
"""
import json
import os
import sys


def write_or_check(path, document, argv=None):
    """Returns the process exit status: 0 written or up to date, 1 out of date."""
    argv = sys.argv[1:] if argv is None else argv
    text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    name = os.path.relpath(os.path.normpath(path), os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    if argv == ["--check"]:
        with open(path, encoding="utf-8") as committed:
            same = committed.read() == text
        print("testvectors/%s is %s" % (name, "up to date" if same else "OUT OF DATE: rerun the script and commit it"),
              file=sys.stdout if same else sys.stderr)
        return 0 if same else 1
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as out:
        out.write(text)
    return 0
