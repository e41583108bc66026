# ruff: noqa
# attack: async def and await
# expect: policy_violation
async def f():
    return 1
