# ruff: noqa
# attack: __cause__ through a format field
# expect: policy_violation
# layer: format_checker
try:
    try:
        fail()
    except SkillError as s:
        raise ValueError("v") from s
except ValueError as v:
    print("{0.__cause__.__traceback__}".format(v))
