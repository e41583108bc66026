# ruff: noqa
import math

observe()
plan = placement("p6", "p2", 0, 0)
pick("p2")
res = place(plan.pose)
ok = math.isclose(res.pose.x_mm, plan.pose.x_mm, abs_tol=2.0)
print("within tolerance" if ok else "off target")
