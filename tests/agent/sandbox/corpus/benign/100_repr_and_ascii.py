# ruff: noqa
b = observe()[0]
print(repr(b.color), ascii("naïve"), str(b.size))
