# ruff: noqa
bricks = observe()
print("all visible:", all(b.visible_fraction > 0.5 for b in bricks))
print("any in structure:", any(b.in_structure for b in bricks))
