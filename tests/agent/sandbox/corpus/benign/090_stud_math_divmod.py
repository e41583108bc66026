# ruff: noqa
STUD = 8.0
for b in observe():
    studs, rem = divmod(b.x_mm, STUD)
    print(b.id, int(studs), round(rem, 1))
