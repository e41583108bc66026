# ruff: noqa
from __future__ import annotations


def describe(b: BrickDescriptor) -> str:
    return f"{b.color} {b.size[0]}x{b.size[1]} at ({b.x_mm:.0f}, {b.y_mm:.0f})"


for brick in observe():
    print(describe(brick))
