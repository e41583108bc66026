"""Run untrusted agent programs: AST policy, confined child process, skill calls over JSON-RPC.

`run_program(code, methods, limits)` for one program; `Sandbox` to reuse a pre-started child.
"""

from agent.sandbox.layers import LayerReport
from agent.sandbox.limits import SandboxLayers, SandboxLimits
from agent.sandbox.result import Outcome, SandboxResult, SkillCall
from agent.sandbox.runner import Sandbox, run_program
from agent.sandbox.server import SkillServer

__all__ = [
    "LayerReport", "Outcome", "Sandbox", "SandboxLayers", "SandboxLimits", "SandboxResult", "SkillCall",
    "SkillServer", "run_program",
]
