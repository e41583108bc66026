# ruff: noqa
bricks = observe()
by_color = {}
for b in bricks:
    by_color.setdefault(b.color, []).append(b.id)
for color, ids in sorted(by_color.items()):
    print(color, ids)
