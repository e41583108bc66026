"""The robot API an agent may call; importing it registers the skill-level Gymnasium env."""

import gymnasium as _gym

if "jarvis/LegoAssemblySkills-v1" not in _gym.registry:
    _gym.register(id="jarvis/LegoAssemblySkills-v1", entry_point="skills.gym_env:make_skill_env")
