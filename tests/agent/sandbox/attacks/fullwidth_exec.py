# ruff: noqa
# attack: fullwidth identifier normalised to exec
# expect: policy_violation
ｅｘｅｃ("import os")
