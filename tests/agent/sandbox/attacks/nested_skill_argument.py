# ruff: noqa
# attack: a skill argument nested 100 levels deep (reaches recursive code on the host)
# expect: policy_violation
# layer: protocol
x = []
for i in range(100):
    x = [x]
ping(x)
