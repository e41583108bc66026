# ruff: noqa
# attack: format field with_traceback on a caught exception
# expect: policy_violation
# layer: format_checker
try:
    fail()
except SkillError as e:
    print("{0.with_traceback}".format(e))
