# ruff: noqa
# attack: json.loads of a deeply nested document (RecursionError inside the child only)
# expect: error
# layer: recursion_limit
import json
print(json.loads("[" * 100000 + "]" * 100000))
