# ruff: noqa
bricks = observe()
grid = [[(x, y) for x in range(2)] for y in range(2)]
flat = [cell for row in grid for cell in row]
print(len(flat), flat[-1], len(bricks))
