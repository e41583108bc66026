# ruff: noqa
waypoints = [(350, 0, 200), (350, 100, 200), (400, 100, 150)]
for x, y, z in waypoints:
    p = move_ee(float(x), float(y), float(z))
    print(round(p.z_mm))
