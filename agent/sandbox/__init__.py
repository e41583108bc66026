"""Run untrusted agent programs: AST policy, confined child process, skill calls over JSON-RPC.

`run_program(code, methods, limits)` for one program; `Sandbox` to reuse a pre-started child.
"""

from agent.sandbox.layers import LayerReport
from agent.sandbox.limits import SandboxLayers, SandboxLimits
from agent.sandbox.result import SandboxResult
from agent.sandbox.runner import Sandbox, run_program
from agent.sandbox.server import SkillServer

__all__ = [
    "LayerReport", "Sandbox", "SandboxLayers", "SandboxLimits", "SandboxResult",
    "SkillServer", "run_program",
]
