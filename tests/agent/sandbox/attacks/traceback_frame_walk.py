# ruff: noqa
# attack: exception traceback frame walk
# expect: policy_violation
# layer: ast_policy
try:
    1 / 0
except ZeroDivisionError as e:
    print(e.__traceback__.tb_frame.f_back)
