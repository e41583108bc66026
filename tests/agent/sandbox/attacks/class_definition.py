# ruff: noqa
# attack: class definition (metaclass tricks)
# expect: policy_violation
class A:
    pass
