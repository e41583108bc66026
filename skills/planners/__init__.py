"""Motion planners behind skills/motion.py's MotionPlanner besides the built-in Cartesian one, chosen by name
(skills.planners.registry.make_planner): OMPL (sampling-based, in-process), MoveIt (move_group over ROS 2) and cuMotion
(isaac_ros_cumotion's MoveGroup action); joint_paths.py holds what they share."""
