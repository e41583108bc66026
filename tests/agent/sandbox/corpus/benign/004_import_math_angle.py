# ruff: noqa
import math

bricks = observe()
home = get_ee_pose()
for b in bricks:
    angle = math.degrees(math.atan2(b.y_mm - home.y_mm, b.x_mm - home.x_mm))
    print(f"{b.id}: {angle:.1f} deg, {math.hypot(b.x_mm - home.x_mm, b.y_mm - home.y_mm):.0f} mm")
