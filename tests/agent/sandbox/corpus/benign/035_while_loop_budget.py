# ruff: noqa
attempts = 0
while attempts < 3:
    attempts += 1
    bricks = observe()
    if any(b.color == "red" for b in bricks):
        break
print("found red after", attempts, "looks")
