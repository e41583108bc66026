# ruff: noqa
# attack: fullwidth identifier normalised to exec
# expect: policy_violation
# layer: ast_policy
ｅｘｅｃ("import os")
