"""Bridges to evaluation frameworks researchers already use: inspect_ai (VSP, GamiBench) and Inspect Robots
(the MuJoCo world as an embodiment, JARVIS tasks as a task set, their policies driven by `jarvis run`).

A leaf over the rest of `agent`: it imports JARVIS downward and nothing in JARVIS imports it. Each module
imports its framework at the top, so importing one without the `inspect` extra fails with the
extra's name (`pip install 'jarvis[inspect]'`); the core install never needs them.
"""
