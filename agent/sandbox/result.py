"""What a sandboxed program run produced: outcome, where it stopped, its output and its skill calls."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

# 'paused' is the host's choice (it stopped the program after a skill call, e.g. after each placement
# when reflecting at placement granularity); a child can never claim it.
Outcome = Literal["ok", "policy_violation", "skill_error", "timeout", "resource_limit", "error", "paused"]


class SkillCall(BaseModel):
    """One skill call the program made, as the skill server saw it."""

    model_config = ConfigDict(extra="forbid")

    method: str
    params: dict[str, Any]
    ok: bool
    result: Any = None
    error_kind: str | None = None
    error_message: str | None = None
    duration_s: float = 0.0


class SandboxResult(BaseModel):
    """How one program ended. `host_detail` is for the operator's logs and never shown to an agent."""

    model_config = ConfigDict(extra="forbid")

    outcome: Outcome
    line: int | None = Field(default=None, description="1-based line of the program where it stopped, if known.")
    message: str = ""
    error_kind: str | None = Field(default=None, description="Skill error kind, exception type or limit name.")
    stdout: str = ""
    calls: list[SkillCall] = Field(default_factory=list)
    wall_s: float = 0.0
    layers: list[str] = Field(default_factory=list, description="Isolation layers active for this run.")
    host_detail: str | None = None

    def agent_view(self) -> dict[str, Any]:
        """The fields an agent (and `jarvis sandbox check`) sees."""
        return {"outcome": self.outcome, "line": self.line, "message": self.message, "stdout": self.stdout}
