# ruff: noqa
# attack: getattr with a dunder string built at run time (the checked getattr refuses it)
# expect: policy_violation
# layer: restricted_builtins
k = getattr(1, "__cl" + "ass__")
