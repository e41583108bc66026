# ruff: noqa
# attack: read the process environment through /proc
# expect: policy_violation
print(open("/proc/self/environ").read())
