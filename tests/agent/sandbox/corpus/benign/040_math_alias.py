# ruff: noqa
import math as m

poses = [get_ee_pose()]
print(round(m.cos(m.pi / 3), 3), m.floor(poses[0].z_mm))
