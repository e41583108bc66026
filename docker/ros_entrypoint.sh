#!/bin/bash
# Source ROS 2 and the JARVIS workspace, then run the container's command.
set -e
source /opt/ros/jazzy/setup.bash
if [ -f /opt/ros2_ws/install/setup.bash ]; then
  source /opt/ros2_ws/install/setup.bash
fi
exec "$@"
