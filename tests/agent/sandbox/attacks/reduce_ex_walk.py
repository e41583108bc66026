# ruff: noqa
# attack: __reduce_ex__ to reach copyreg and the class graph
# expect: policy_violation
# layer: ast_policy
print((1).__reduce_ex__(2)[0].__globals__)
