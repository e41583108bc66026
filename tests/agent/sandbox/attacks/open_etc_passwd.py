# ruff: noqa
# attack: read a host file
# expect: policy_violation
print(open("/etc/passwd").read())
