# ruff: noqa
# attack: fullwidth letters normalised to __class__ by the parser
# expect: policy_violation
# layer: ast_policy
x = ().__ｃｌａｓｓ__.__ｂａｓｅ__
