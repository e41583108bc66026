# ruff: noqa
b = observe()[0]
print(hasattr(b, "x_mm"), hasattr(b, "velocity"))
