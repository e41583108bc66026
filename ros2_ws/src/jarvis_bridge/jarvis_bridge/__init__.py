"""ROS 2 package wrapper of the JARVIS bridge node (skills.ros.bridge)."""
