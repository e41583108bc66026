# ruff: noqa
bricks = observe()
targets = [(0, 0), (2, 0), (4, 0)]
for b, (sx, sy) in zip([x for x in bricks if not x.in_structure][:3], targets):
    print("would place", b.id, "at", sx, sy)
