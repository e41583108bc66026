# ruff: noqa
ids = (b.id for b in observe() if b.color == "red")
print(next(ids), next(ids, "no more"))
