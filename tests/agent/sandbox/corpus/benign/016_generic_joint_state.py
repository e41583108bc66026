# ruff: noqa
js = get_joint_state()
print(["%.2f" % q for q in js.positions_rad])
print("gripper", js.gripper_opening_mm)
