# ruff: noqa
# attack: random is not reviewed (unseeded randomness, SystemRandom reaches os.urandom)
# expect: policy_violation
# layer: ast_policy
import random
print(random.SystemRandom().random())
