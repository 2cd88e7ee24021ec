#!/usr/bin/env python3
"""Validates recallbench JSON documents against the schemas in reports/schema (jsonschema, draft 2020-12).

  validate_schema.py SCHEMA_DIR SCHEMA_FILE DOCUMENT...

References to config.schema.json are inlined and the top-level "$id" dropped before validation, so
that Debian's python3-jsonschema (4.10) and newer releases behave the same. Exits 1 naming the first error of each invalid document.
"""
import json
import os
import sys

import jsonschema


def inline(node, config):
    if isinstance(node, dict):
        if node.get("$ref") == "config.schema.json":
            return config
        return {k: inline(v, config) for k, v in node.items()}
    if isinstance(node, list):
        return [inline(v, config) for v in node]
    return node


def main():
    schema_dir, schema_file, documents = sys.argv[1], sys.argv[2], sys.argv[3:]
    with open(os.path.join(schema_dir, "config.schema.json")) as f:
        config = json.load(f)
    config = {k: v for k, v in config.items() if k not in ("$schema", "$id")}
    with open(os.path.join(schema_dir, schema_file)) as f:
        schema = inline(json.load(f), config)
    # A relative "$id" makes jsonschema 4.10 (Debian 12) resolve "#/$defs/..." against a bogus base URI and
    # try to fetch it over the network; without it, local references resolve in the document itself.
    schema.pop("$id", None)
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema)
    bad = 0
    for path in documents:
        with open(path) as f:
            doc = json.load(f)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        if errors:
            bad += 1
            e = errors[0]
            print("INVALID %s against %s: at /%s: %s" % (path, schema_file, "/".join(map(str, e.path)), e.message))
        else:
            print("valid: %s against %s" % (path, schema_file))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
