# ruff: noqa
# Observe a few times to let the estimates settle.
for _ in range(3):
    bricks = observe()
print(len(bricks), "bricks visible")
