# ruff: noqa
best, best_d = None, float("inf")
ee = get_ee_pose()
for b in observe():
    d = ((b.x_mm - ee.x_mm) ** 2 + (b.y_mm - ee.y_mm) ** 2) ** 0.5
    if d < best_d:
        best, best_d = b, d
print(best.id, round(best_d))
