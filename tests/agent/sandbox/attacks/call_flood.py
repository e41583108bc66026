# ruff: noqa
# attack: skill-call flood
# expect: resource_limit
while True:
    ping()
