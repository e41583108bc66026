"""Motion planners behind skills/motion.py's MotionPlanner besides the built-in Cartesian one, chosen by name
(skills.motion.make_planner): OMPL (sampling-based, in-process)."""
