"""Errors a skill raises for the agent: each has a `kind` and a message written for the model."""

from __future__ import annotations


class SkillError(Exception):
    """Base of every agent-facing skill failure; subclasses set `kind` (e.g. "grasp_failed")."""

    kind: str = "skill_error"

    def __init__(self, message: str, *, kind: str | None = None) -> None:
        super().__init__(message)
        if kind is not None:
            self.kind = kind

    @property
    def message(self) -> str:
        """The agent-facing explanation."""
        return str(self.args[0]) if self.args else ""
