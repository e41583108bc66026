# ruff: noqa
def normalise(yaw):
    yaw = yaw % 180.0
    return yaw - 180.0 if yaw > 90.0 else yaw


for b in observe():
    print(b.id, normalise(b.yaw_deg))
