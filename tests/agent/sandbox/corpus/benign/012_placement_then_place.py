# ruff: noqa
observe()
plan = placement("p6", "p5", 1, 0, rotation=0)
print("target pose", plan.pose.x_mm, plan.pose.y_mm, plan.pose.z_mm)
pick("p5")
res = place(plan.pose)
print(res.error_mm < 2.0)
