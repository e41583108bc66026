# ruff: noqa
labels = [chr(ord("A") + i) for i in range(len(observe()))]
print("".join(labels))
