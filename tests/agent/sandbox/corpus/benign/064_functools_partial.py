# ruff: noqa
from functools import partial

place_row = partial(place_on, "p6", stud_y=0)
observe()
pick("p2")
res = place_row(stud_x=4)
print(res.seated)
