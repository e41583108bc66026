# ruff: noqa
observe()
plan = grasp_plan("p1")
if plan.clearance_mm > 3:
    pick("p1")
    put_down()
print(f"opening {plan.opening_mm:.1f} mm")
