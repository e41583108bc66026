"""Imports the modules that register the built-in task families."""

from __future__ import annotations

import importlib
import importlib.util
import os

# Each family module calls register_family() at import. The list is explicit so registration never
# depends on what else happened to be imported first.
FAMILY_MODULES = (
    "jarvis_sim.tasks.lego_family",
    "jarvis_sim.tasks.planning_family",
    "jarvis_sim.vsp.family",
    "jarvis_sim.origami.family",
)

for _module in FAMILY_MODULES:
    if importlib.util.find_spec(_module.rsplit(".", 1)[0]) and importlib.util.find_spec(_module):
        importlib.import_module(_module)

# User plug-ins (their own task families, scorers, agents): JARVIS_PLUGINS="pkg.module,other.module".
# Read from the environment so that worker processes started by the server load them too.
for _module in filter(None, (m.strip() for m in os.environ.get("JARVIS_PLUGINS", "").split(","))):
    importlib.import_module(_module)
