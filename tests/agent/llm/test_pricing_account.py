"""Price lookup, overrides, and the per-episode usage account."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.llm import ChatResponse, ModelPrice, PriceTable, Usage, UsageAccount


@pytest.mark.parametrize(
    ("model", "input_price"),
    [
        ("gpt-4o", 2.50),
        ("gpt-4o-2024-08-06", 2.50),
        ("gpt-4o-mini", 0.15),
        ("gpt-4o-mini-2024-07-18", 0.15),
        ("openai/gpt-4o", 2.50),
        ("claude-sonnet-4-6", 3.00),
        ("claude-3-5-haiku-20241022", 0.80),
        ("models/gemini-2.5-flash", 0.30),
        ("DeepSeek-Chat", 0.27),
    ],
)
def test_longest_prefix_at_a_name_boundary(model: str, input_price: float) -> None:
    price = PriceTable().lookup(model)
    assert price is not None and price.input_per_mtok == input_price


def test_unknown_models_cost_zero_and_say_so() -> None:
    table = PriceTable()
    assert table.lookup("qwen2.5-vl") is None
    assert table.lookup("gpt-4oops") is None  # a prefix without a boundary is another model
    assert table.cost("llava:13b", Usage(input_tokens=10**6, output_tokens=10**6)) == (0.0, False)


def test_overrides_win_and_files_are_validated(tmp_path: Path) -> None:
    table = PriceTable({"qwen2.5-vl": ModelPrice(input_per_mtok=0.1, output_per_mtok=0.2)})
    assert table.cost("qwen2.5-vl-72b", Usage(input_tokens=1_000_000, output_tokens=500_000)) == (0.2, True)
    good = tmp_path / "prices.json"
    good.write_text(json.dumps({"gpt-4o": {"input_per_mtok": 1.0, "output_per_mtok": 4.0}}))
    assert PriceTable.from_file(good).cost("gpt-4o", Usage(input_tokens=10**6, output_tokens=0)) == (1.0, True)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"gpt-4o": {"input_per_mtok": -1, "output_per_mtok": 4.0}}))
    with pytest.raises(ValueError, match=r"bad\.json, entry 'gpt-4o'"):
        PriceTable.from_file(bad)


def _response(cost: float, known: bool = True, cached: bool = False, model: str = "gpt-4o") -> ChatResponse:
    return ChatResponse(
        text="x",
        usage=Usage(input_tokens=100, output_tokens=20),
        cost_usd=cost,
        cost_known=known,
        model=model,
        provider="openai",
        cached=cached,
        attempts=0 if cached else 2,
    )


def test_account_counts_tokens_always_and_cost_only_for_fresh_answers() -> None:
    account = UsageAccount()
    account.add(_response(0.01))
    account.add(_response(0.01, cached=True))
    account.add(_response(0.0, known=False, model="llava"))
    assert (account.requests, account.cached, account.attempts) == (3, 1, 4)
    assert (account.input_tokens, account.output_tokens) == (300, 60)
    assert account.cost_usd == pytest.approx(0.01)
    assert not account.cost_complete and account.summary()["unpriced_models"] == ["llava"]
    record = account.to_record()
    assert (record.input, record.output, record.requests, record.cached) == (300, 60, 3, 1)
    assert record.cost_usd == pytest.approx(0.01)
