# ruff: noqa
# attack: import of os to run a shell
# expect: policy_violation
# layer: ast_policy
import os
os.system("echo ESCAPED > {{MARKER}}")
