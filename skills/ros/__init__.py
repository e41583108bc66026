"""The verified skills over ROS 2: the bridge node that hosts a backend and its skills, and the service side's
`ros` backend that reaches them through the bridge's actions (jarvis_interfaces).

Importing this package needs nothing; the modules that talk ROS import rclpy (the `ros` extra) when used.
"""
