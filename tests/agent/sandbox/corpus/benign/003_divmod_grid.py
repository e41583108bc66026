# ruff: noqa
# Lay out the studs of a 2x4 grid and print them row by row.
positions = []
for k in range(8):
    q, _ = divmod(k, 4)
    positions.append((k % 4, q))
print(positions)
