"""skills.stored: what a record keeps of agent-made values, per value and per episode."""

from __future__ import annotations

from skills.stored import MARKER, StoredBytes, clip


def test_small_values_are_kept_as_they_are() -> None:
    stored = StoredBytes(episode_bytes=1 << 20, value_bytes=100)
    value = {"color": "red", "size": [2, 4]}
    assert stored.keep(value) is value and stored.keep(3.5) == 3.5 and stored.clipped == 0


def test_a_value_above_the_limit_becomes_a_marker_naming_its_size_and_the_limit() -> None:
    kept = clip("r" * 1_000_000, 1000)
    assert isinstance(kept, str) and kept.startswith(MARKER)
    assert "1000002 bytes" in kept and "1000-byte limit" in kept and len(kept) < 300


def test_the_episode_budget_turns_later_values_into_markers() -> None:
    stored = StoredBytes(episode_bytes=10_000, value_bytes=4_000)
    kept = [stored.keep("x" * 3_000) for _ in range(5)]
    assert [k.startswith(MARKER) for k in kept] == [False, False, False, True, True]
    assert "budget.record_bytes" in kept[-1] and stored.kept < 10_000 + 1_000


def test_a_long_text_keeps_its_head_and_says_how_much_was_cut() -> None:
    stored = StoredBytes(episode_bytes=1 << 20)
    text = stored.keep_text("a" * 50_000_000)  # a 50 MB model answer
    assert text.startswith("a" * 1000) and MARKER in text and len(text) < 300_000
    assert "more characters" in text


def test_a_value_that_is_not_json_is_measured_by_its_repr() -> None:
    assert clip(object(), 10).startswith(MARKER)
