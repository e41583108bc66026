# ruff: noqa
print("id".ljust(4), "colour".ljust(20), "size")
for b in observe():
    print(b.id.ljust(4), b.color.ljust(20), "x".join(str(s) for s in b.size))
