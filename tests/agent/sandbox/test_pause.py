"""The skill server's pause hook: the host ends a program right after a chosen call, outcome 'paused'."""

from __future__ import annotations

from agent.sandbox import Sandbox, SkillServer
from tests.agent.sandbox.harness import TEST_LIMITS


def test_a_program_is_paused_after_the_call_the_host_chose() -> None:
    placed: list[str] = []

    def place(brick: str) -> str:
        """Record the placement."""
        placed.append(brick)
        return brick

    def look() -> int:
        """Nothing to see."""
        return 0

    pending: list[str] = []

    def pause_after() -> str | None:
        return pending.pop() if pending else None

    def on_place(brick: str) -> str:
        out = place(brick)
        pending.append(f"paused after place({brick!r})")
        return out

    server = SkillServer({"place": on_place, "look": look}, pause_after=pause_after)
    code = "look()\nprint('before')\nplace('b1')\nprint('after')\nplace('b2')\n"
    with Sandbox(TEST_LIMITS) as sandbox:
        result = sandbox.run(code, server)
        assert result.outcome == "paused" and result.message == "paused after place('b1')"
        assert placed == ["b1"] and [c.name for c in result.calls] == ["look", "place"]
        assert result.calls[-1].ok and result.calls[-1].result == "b1"
        assert "before" in result.stdout and "after" not in result.stdout
        # Without a pending reason the same server lets the next program run to its end.
        again = sandbox.run("look()\n", server)
        assert again.outcome == "ok" and [c.name for c in again.calls] == ["look"]
