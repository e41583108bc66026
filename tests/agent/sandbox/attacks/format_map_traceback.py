# ruff: noqa
# attack: format_map field reaching __traceback__ of a caught error
# expect: policy_violation
# layer: format_checker
try:
    fail()
except SkillError as e:
    print("{e.__traceback__.tb_frame.f_globals}".format_map({"e": e}))
