"""What a sandboxed program run produced: outcome, where it stopped, its output and its skill calls."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from jarvis_sim.records import Outcome, SkillCallRecord


class SandboxResult(BaseModel):
    """How one program ended. `host_detail` is for the operator's logs and never shown to an agent."""

    model_config = ConfigDict(extra="forbid")

    outcome: Outcome  # never 'no_code' (that is a round without a program); 'paused' only by the host's choice
    line: int | None = Field(default=None, description="1-based line of the program where it stopped, if known.")
    message: str = ""
    error_kind: str | None = Field(default=None, description="Skill error kind, exception type or limit name.")
    stdout: str = ""
    calls: list[SkillCallRecord] = Field(default_factory=list)
    wall_s: float = 0.0
    layers: list[str] = Field(default_factory=list, description="Isolation layers active for this run.")
    host_detail: str | None = None

    def agent_view(self) -> dict[str, Any]:
        """The fields an agent (and `jarvis sandbox check`) sees."""
        return {"outcome": self.outcome, "line": self.line, "message": self.message, "stdout": self.stdout}
