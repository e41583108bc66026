# ruff: noqa
# attack: SkillError's __init__ globals (child module state)
# expect: policy_violation
# layer: ast_policy
print(SkillError.__init__.__globals__)
