#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Validate results.json files against docs/results.schema.json.

    validate.py [--schema FILE] PATH...

A PATH is a results.json, or a directory searched for every results.json
under it.  One line per file; exit status 1 if any file does not validate
(or none was found), naming the file, the member and what is wrong.
"""
import json
import os
import sys

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA = os.path.join(HERE, "..", "..", "docs", "results.schema.json")


def files(paths):
    for p in paths:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                if "results.json" in names:
                    yield os.path.join(root, "results.json")
        else:
            yield p


def main(argv):
    schema_path = SCHEMA
    if argv[:1] == ["--schema"]:
        schema_path, argv = argv[1], argv[2:]
    with open(schema_path) as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema)
    bad = n = 0
    for path in files(argv):
        n += 1
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            print("results-schema: FAIL %s: %s" % (path, e))
            bad += 1
            continue
        errors = sorted(validator.iter_errors(doc), key=lambda e: e.path)
        if errors:
            bad += 1
            for e in errors[:5]:
                where = "/".join(str(p) for p in e.absolute_path) or "(top)"
                print("results-schema: FAIL %s: %s: %s"
                      % (path, where, e.message[:300]))
        else:
            print("results-schema: ok %s (mode %s)" % (path, doc.get("mode")))
    if not n:
        print("results-schema: FAIL no results.json in %s" % " ".join(argv))
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
