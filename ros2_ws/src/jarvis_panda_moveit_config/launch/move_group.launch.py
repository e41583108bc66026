"""move_group for the Panda behind the JARVIS bridge (no ros2_control: the bridge serves the controllers).

Needs in the image: ros-jazzy-moveit, ros-jazzy-moveit-resources-panda-moveit-config (docker/Dockerfile.ros).
Not run in CI (MoveIt is not on PyPI); the JARVIS MoveIt planner client is tested against a protocol stand-in.
"""

import os

from ament_index_python.packages import get_package_share_directory
from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node
from moveit_configs_utils import MoveItConfigsBuilder


def generate_launch_description() -> LaunchDescription:
    controllers = os.path.join(get_package_share_directory("jarvis_panda_moveit_config"), "config",
                               "moveit_controllers.yaml")
    config = (
        MoveItConfigsBuilder("moveit_resources_panda")
        .robot_description(file_path="config/panda.urdf.xacro")
        .trajectory_execution(file_path=controllers)
        .planning_pipelines(pipelines=["ompl"])
        .to_moveit_configs()
    )
    use_sim_time = LaunchConfiguration("use_sim_time")
    return LaunchDescription([
        DeclareLaunchArgument("use_sim_time", default_value="true"),  # the bridge publishes /clock
        Node(
            package="moveit_ros_move_group", executable="move_group", output="screen",
            parameters=[config.to_dict(), {"use_sim_time": use_sim_time}],
        ),
        Node(
            package="robot_state_publisher", executable="robot_state_publisher", output="screen",
            parameters=[config.robot_description, {"use_sim_time": use_sim_time}],
        ),
    ])
