# ruff: noqa
# attack: star import of builtins to get the real ones
# expect: policy_violation
# layer: ast_policy
from builtins import *
print(open("/etc/passwd").read())
