# ruff: noqa
# attack: the math namespace's __dict__ and class
# expect: policy_violation
# layer: ast_policy
import math
print(math.__class__.__init__)
