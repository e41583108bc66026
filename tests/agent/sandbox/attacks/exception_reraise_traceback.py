# ruff: noqa
# attack: re-raised error keeps no link to the handler's frames
# expect: error
# layer: exception_scrub
try:
    fail()
except SkillError as e:
    raise ValueError(str(e))
