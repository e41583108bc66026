# ruff: noqa
# attack: functools.partial around getattr with a dunder name
# expect: policy_violation
# layer: restricted_builtins
from functools import partial
g = partial(getattr, ping)
print(g("__glob" + "als__"))
