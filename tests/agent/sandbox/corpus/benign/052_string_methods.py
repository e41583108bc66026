# ruff: noqa
bricks = observe()
names = ", ".join(b.color.upper() for b in bricks)
print(names.split(", ")[0].lower().strip())
