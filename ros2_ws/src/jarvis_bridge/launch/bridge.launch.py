"""Launch the JARVIS bridge: `ros2 launch jarvis_bridge bridge.launch.py backend:=mujoco planner:=cartesian`."""

from launch import LaunchDescription
from launch.actions import DeclareLaunchArgument
from launch.substitutions import LaunchConfiguration
from launch_ros.actions import Node


def generate_launch_description() -> LaunchDescription:
    args = {"backend": "mujoco", "namespace": "/jarvis", "planner": "cartesian", "camera_hz": "10"}
    return LaunchDescription([
        *(DeclareLaunchArgument(k, default_value=v) for k, v in args.items()),
        Node(
            package="jarvis_bridge", executable="bridge", name="jarvis_bridge", output="screen",
            arguments=["--backend", LaunchConfiguration("backend"), "--namespace", LaunchConfiguration("namespace"),
                       "--planner", LaunchConfiguration("planner"), "--camera-hz", LaunchConfiguration("camera_hz")],
        ),
    ])
