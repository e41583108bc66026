# ruff: noqa
# attack: __reduce_ex__ of an itertools object through a format field
# expect: policy_violation
# layer: format_checker
import itertools
print("{0.__reduce_ex__}".format(itertools.count()))
