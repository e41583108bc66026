# ruff: noqa
# attack: typing.get_type_hints evaluates annotation strings with eval, outside the policy
# expect: policy_violation
# layer: ast_policy
from typing import get_type_hints
def f(x: "().__class__.__base__.__subclasses__()"):
    pass
print(get_type_hints(f))
