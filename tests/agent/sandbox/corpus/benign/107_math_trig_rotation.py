# ruff: noqa
from math import cos, sin, radians

def rotate(x, y, deg):
    r = radians(deg)
    return x * cos(r) - y * sin(r), x * sin(r) + y * cos(r)


print([round(v, 3) for v in rotate(1.0, 0.0, 90.0)])
