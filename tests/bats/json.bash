# Shared by the suites that read JSON reports, with or without a build of libplace.

# Succeeds when every file after $1 is valid against the JSON schema $1 (itself checked),
# printing each error with its file and place.
valid_against() {
    /usr/bin/python3 -c '
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
bad = 0
for path in sys.argv[2:]:
    for error in validator.iter_errors(json.load(open(path))):
        print(f"{path}: {error.json_path}: {error.message}")
        bad = 1
sys.exit(bad)' "$@"
}

# Every file given is valid against docs/report.schema.json, or the policy's schema.
valid_report() {
    valid_against "$REPO/docs/report.schema.json" "$@"
}

valid_policy() {
    valid_against "$REPO/scripts/libplace_tools/policy.schema.json" "$@"
}

# Runs python code ($1) with the JSON of file $2 as `d` (and further files as d2, d3).
with_json() {
    local code=$1
    shift
    /usr/bin/python3 -c "
import json, sys
docs = [json.load(open(p)) for p in sys.argv[1:]]
d = docs[0]
d2 = docs[1] if len(docs) > 1 else None
d3 = docs[2] if len(docs) > 2 else None
$code" "$@"
}
