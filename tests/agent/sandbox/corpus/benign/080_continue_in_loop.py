# ruff: noqa
observe()
for b in find_bricks(loose_only=True):
    if b.color == "white":
        continue
    print("candidate", b.id)
