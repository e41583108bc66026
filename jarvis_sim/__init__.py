"""The worlds of JARVIS: LEGO domain, tasks, manuals, simulator backends and the Gymnasium env.

Importing the package registers the Gymnasium id `jarvis/LegoAssembly-v1` (Gymnasium 1.x loads no plugin
entry points, so the package import is the hook); the env module itself loads only when the env is made.
"""

import gymnasium as _gym

if "jarvis/LegoAssembly-v1" not in _gym.registry:
    _gym.register(id="jarvis/LegoAssembly-v1", entry_point="jarvis_sim.env:LegoAssemblyEnv")
