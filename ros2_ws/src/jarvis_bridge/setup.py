"""ament_python package of the bridge's entry point and launch file (the node is skills.ros.bridge)."""

from glob import glob

from setuptools import setup

setup(
    name="jarvis_bridge",
    version="0.1.0",
    packages=["jarvis_bridge"],
    data_files=[
        ("share/ament_index/resource_index/packages", ["resource/jarvis_bridge"]),
        ("share/jarvis_bridge", ["package.xml"]),
        ("share/jarvis_bridge/launch", glob("launch/*.launch.py")),
    ],
    install_requires=["setuptools"],
    zip_safe=True,
    entry_points={"console_scripts": ["bridge = jarvis_bridge.main:main"]},
)
