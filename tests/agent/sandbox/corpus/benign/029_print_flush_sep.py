# ruff: noqa
bricks = observe()
print("ids:", *[b.id for b in bricks], sep=" ", flush=True)
print("count", len(bricks), end="\n", flush=True)
