# ruff: noqa
bricks = observe()
print([int(round(b.x_mm / 8.0)) for b in bricks])
print(hex(len(bricks)), bin(3), oct(8))
