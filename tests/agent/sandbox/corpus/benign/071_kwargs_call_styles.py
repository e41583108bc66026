# ruff: noqa
observe()
pick(brick="p3")
place_on(support="p6", stud_x=0, stud_y=0, rotation=1)
print(placement(support="p6", brick="p1", stud_x=2, stud_y=0).pose.yaw_deg)
