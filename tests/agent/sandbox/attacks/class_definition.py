# ruff: noqa
# attack: class definition (metaclass tricks)
# expect: policy_violation
# layer: ast_policy
class A:
    pass
