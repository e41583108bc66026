# ruff: noqa
import math

for k in range(4):
    yaw = math.degrees(k * math.pi / 4)
    move_ee(350.0, 0.0, 150.0, yaw_deg=yaw)
print(get_ee_pose().yaw_deg)
