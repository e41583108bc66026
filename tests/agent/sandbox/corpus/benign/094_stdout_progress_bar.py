# ruff: noqa
total = 5
for i in range(total + 1):
    print("[" + "#" * i + "." * (total - i) + "]", f"{100 * i // total}%")
