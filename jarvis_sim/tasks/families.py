"""Imports the modules that register the built-in task families."""

from __future__ import annotations

import importlib
import importlib.util

# Each family module calls register_family() at import. The list is explicit so registration never
# depends on what else happened to be imported first.
FAMILY_MODULES = ("jarvis_sim.tasks.lego_family", "jarvis_sim.vsp.family", "jarvis_sim.origami.family")

for _module in FAMILY_MODULES:
    if importlib.util.find_spec(_module.rsplit(".", 1)[0]) and importlib.util.find_spec(_module):
        importlib.import_module(_module)
