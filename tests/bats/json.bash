# Shared by the suites that read JSON reports, with or without a build of libplace.

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
