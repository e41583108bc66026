# ruff: noqa
ee = get_ee_pose()
r = math.sqrt(ee.x_mm ** 2 + ee.y_mm ** 2)
print(f"reach {r:.0f} mm, yaw {math.radians(ee.yaw_deg):.2f} rad")
