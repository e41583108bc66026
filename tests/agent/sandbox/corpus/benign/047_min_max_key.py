# ruff: noqa
bricks = [b for b in observe() if not b.in_structure]
left = min(bricks, key=lambda b: b.y_mm)
right = max(bricks, key=lambda b: b.y_mm)
print("leftmost", left.id, "rightmost", right.id)
