# ruff: noqa
count: int = 0
names: list = []
for b in observe():
    count += 1
    names.append(b.id)
print(count, names)
