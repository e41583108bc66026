# ruff: noqa
# attack: match class pattern reading __class__ through keyword patterns
# expect: policy_violation
# layer: ast_policy
match 1:
    case int(__class__=c):
        print(c)
