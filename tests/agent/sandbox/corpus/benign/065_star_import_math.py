# ruff: noqa
from math import *

pose = get_ee_pose()
print(round(sqrt(pose.x_mm ** 2 + pose.y_mm ** 2)), round(degrees(atan2(pose.y_mm, pose.x_mm)), 1), floor(pi))
