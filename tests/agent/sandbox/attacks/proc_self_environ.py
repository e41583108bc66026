# ruff: noqa
# attack: read the process environment through /proc
# expect: policy_violation
# layer: ast_policy
print(open("/proc/self/environ").read())
