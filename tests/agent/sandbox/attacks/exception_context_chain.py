# ruff: noqa
# attack: an exception's __context__ chain back to a skill error's frames
# expect: policy_violation
# layer: ast_policy
try:
    try:
        fail()
    except SkillError:
        {}["x"]
except KeyError as k:
    print(k.__context__.__traceback__)
