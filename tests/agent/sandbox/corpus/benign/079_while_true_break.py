# ruff: noqa
tries = 0
while True:
    tries += 1
    found = find_bricks(color="yellow") if observe() else []
    if found or tries >= 3:
        break
print("found" if found else "not found", tries)
