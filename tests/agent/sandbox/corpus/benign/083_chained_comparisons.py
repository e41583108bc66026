# ruff: noqa
for b in observe():
    if 250.0 <= b.x_mm < 400.0 and -200 < b.y_mm <= 250:
        print(b.id, "in reach")
