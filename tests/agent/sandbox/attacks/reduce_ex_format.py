# ruff: noqa
# attack: __reduce_ex__ through a format field
# expect: policy_violation
# layer: format_checker
print("{0.__reduce_ex__}".format(1))
