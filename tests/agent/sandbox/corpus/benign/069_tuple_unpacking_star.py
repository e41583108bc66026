# ruff: noqa
first, *rest = observe()
print(first.id, len(rest))
(a, b), c = (1, 2), 3
print(a + b + c)
