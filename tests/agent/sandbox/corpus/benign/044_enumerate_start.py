# ruff: noqa
for n, b in enumerate(observe(), start=1):
    print(f"{n}. {b.color} {tuple(b.size)}")
