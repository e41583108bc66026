# ruff: noqa
b = observe()[0]
long_side, _ = b.size
_, y = b.x_mm, b.y_mm
print(long_side, round(y))
