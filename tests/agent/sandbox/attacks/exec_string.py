# ruff: noqa
# attack: exec of an import
# expect: policy_violation
exec("import os")
