# ruff: noqa
# attack: async def and await
# expect: policy_violation
# layer: ast_policy
async def f():
    return 1
