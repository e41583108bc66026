# ruff: noqa
open_gripper()
move_ee(350.0, 100.0, 120.0)
move_ee(350.0, 100.0, 30.0, yaw_deg=90.0)
width = close_gripper()
print("gripper closed to", width)
move_ee(350.0, 100.0, 120.0)
