# ruff: noqa
try:
    value = int("12")
    ratio = value / 4
except (ValueError, ZeroDivisionError) as exc:
    print("bad value", exc)
else:
    print("ratio", ratio)
