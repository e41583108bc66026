# ruff: noqa
# attack: fullwidth spelling of gi_frame in a format field
# expect: policy_violation
# layer: format_checker
g = (x for x in [1])
print("{0.ｇｉ_ｆｒａｍｅ}".format(g))
