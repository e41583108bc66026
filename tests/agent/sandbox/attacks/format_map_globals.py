# ruff: noqa
# attack: format_map field reaching __globals__ of a skill stub
# expect: policy_violation
# layer: format_checker
print("{p.__globals__}".format_map({"p": ping}))
