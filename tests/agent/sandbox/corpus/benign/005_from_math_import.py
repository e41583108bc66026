# ruff: noqa
from math import atan2, degrees

ee = get_ee_pose()
bricks = observe()
nearest = min(bricks, key=lambda b: (b.x_mm - ee.x_mm) ** 2 + (b.y_mm - ee.y_mm) ** 2)
print(nearest.id, round(degrees(atan2(nearest.y_mm, nearest.x_mm)), 1))
