# ruff: noqa
# attack: exec of an import
# expect: policy_violation
# layer: ast_policy
exec("import os")
