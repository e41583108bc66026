# ruff: noqa
def stack_height(n):
    return 0 if n == 0 else 3 + stack_height(n - 1)


print("levels for 4 bricks:", stack_height(4))
