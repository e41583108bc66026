# ruff: noqa
offsets = {"red": (0, 0), "blue": (4, 0)}
observe()
for b in find_bricks(loose_only=True)[:3]:
    print(b.id, offsets.get(b.color, (None, None)))
