"""Units of the LEGO lattice and their conversion to SI and to LDraw units (LDU).

The lattice is integer: x and y count studs (pitch 8 mm = 20 LDU), z counts plate heights
(3.2 mm = 8 LDU; a brick is 3 plates). Everything inside the code is SI; LDU appears only at the
LDraw boundary.
"""

from __future__ import annotations

STUD_PITCH_M = 0.008
PLATE_HEIGHT_M = 0.0032
BRICK_PLATES = 3
LDU_M = 0.0004  # 1 LDU = 0.4 mm
STUD_LDU = 20
PLATE_LDU = 8
STUD_HEIGHT_M = 0.0017
STUD_DIAMETER_M = 0.0048
WALL_THICKNESS_M = 0.0012  # side walls of the hollow underside
TOP_THICKNESS_M = 0.001
TUBE_OUTER_DIAMETER_M = 0.00651
TUBE_INNER_DIAMETER_M = 0.0048
PIN_DIAMETER_M = 0.0032  # solid pin under 1-wide parts
FIT_GAP_M = 0.0002  # real parts are 0.2 mm shorter than n * pitch: a 2x4 brick is 31.8 x 15.8 mm
ABS_DENSITY_KG_M3 = 1050.0
