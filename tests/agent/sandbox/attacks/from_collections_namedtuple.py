# ruff: noqa
# attack: collections.namedtuple builds classes with exec
# expect: policy_violation
# layer: ast_policy
from collections import namedtuple
P = namedtuple("P", "x y")
