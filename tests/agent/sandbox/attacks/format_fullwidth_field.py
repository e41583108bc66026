# ruff: noqa
# attack: str.format field with a fullwidth dunder name
# expect: policy_violation
# layer: format_checker
print("{0.＿＿class＿＿}".format(1))
