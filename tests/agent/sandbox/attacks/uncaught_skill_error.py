# ruff: noqa
# attack: a skill error nobody catches
# expect: skill_error
# layer: skill_server
fail()
