# ruff: noqa
# attack: import of a fullwidth spelling of os
# expect: policy_violation
# layer: ast_policy
import ｏｓ
ｏｓ.system("true")
