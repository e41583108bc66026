# ruff: noqa
def require(cond, msg):
    if not cond:
        raise RuntimeError(msg)


try:
    require(len(observe()) > 100, "not enough bricks")
except RuntimeError as e:
    print("check failed:", e)
