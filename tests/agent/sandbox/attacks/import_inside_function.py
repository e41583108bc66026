# ruff: noqa
# attack: an unreviewed import hidden in a function body
# expect: policy_violation
# layer: ast_policy
def helper():
    import subprocess
    return subprocess.run(["id"])
helper()
