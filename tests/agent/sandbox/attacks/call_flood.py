# ruff: noqa
# attack: skill-call flood
# expect: resource_limit
# layer: skill_server
while True:
    ping()
