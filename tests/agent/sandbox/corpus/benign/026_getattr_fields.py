# ruff: noqa
bricks = observe()
for b in bricks[:2]:
    values = [getattr(b, field) for field in ("x_mm", "y_mm", "top_z_mm")]
    print(b.id, [round(v, 1) for v in values])
