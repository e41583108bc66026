# ruff: noqa
# attack: from-import of subprocess
# expect: policy_violation
# layer: ast_policy
from subprocess import run
run(["sh", "-c", "echo ESCAPED > {{MARKER}}"])
