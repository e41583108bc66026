"""The Isaac Sim 6 backend (GPU workstation, Isaac Sim 6.2's experimental core APIs).

Importing this package never imports Isaac Sim: `backend.py` starts Kit (SimulationApp) only when an IsaacBackend
is created. Everything that does not need Isaac is plain, CPU-tested code beside it:
`config.py` (settings), `scene.py` (TaskSpec -> bodies, prim paths, camera rigs), `kinematics.py` (Panda FK/IK),
`collision.py` (what-if collision queries), `clutch.py` (connection bookkeeping: seating under a press, breaking
under load). `service.py` runs the ROS 2 bridge around it headless, in Isaac's Python (3.12).
"""
