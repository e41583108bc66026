# ruff: noqa
# attack: arguments that do not fit the skill's signature, uncaught
# expect: skill_error
# layer: skill_server
ping(payload=[1, 2, 3])
