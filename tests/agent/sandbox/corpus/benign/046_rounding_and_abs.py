# ruff: noqa
bricks = observe()
ee = get_ee_pose()
for b in bricks:
    dx, dy = abs(b.x_mm - ee.x_mm), abs(b.y_mm - ee.y_mm)
    print(b.id, round(dx), round(dy))
