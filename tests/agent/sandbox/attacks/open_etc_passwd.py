# ruff: noqa
# attack: read a host file
# expect: policy_violation
# layer: ast_policy
print(open("/etc/passwd").read())
