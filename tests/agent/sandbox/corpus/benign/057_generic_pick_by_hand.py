# ruff: noqa
# Manual pick with the low-level API above brick p1's estimated position.
x, y = 300.0, 150.0
open_gripper()
move_ee(x, y, 80.0, 0.0)
move_ee(x, y, 15.0, 0.0)
w = close_gripper()
move_ee(x, y, 100.0, 0.0)
print("holding something" if w > 1.0 else "missed")
