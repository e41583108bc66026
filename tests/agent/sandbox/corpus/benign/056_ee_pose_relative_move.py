# ruff: noqa
pose = get_ee_pose()
target = move_ee(pose.x_mm + 20.0, pose.y_mm, pose.z_mm - 50.0, yaw_deg=pose.yaw_deg)
print(f"moved to ({target.x_mm:.0f}, {target.y_mm:.0f}, {target.z_mm:.0f})")
