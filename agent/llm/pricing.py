"""Approximate prices of common models, to put a dollar figure on an episode.

The figures are list prices in USD per million tokens as published by the vendors around 2025; they
change often and ignore discounts (batch, prompt caching, long-context surcharges). Treat them as an
estimate, and override them with a JSON file (`{"model-prefix": {"input_per_mtok": 1.0,
"output_per_mtok": 2.0}}`) or `PriceTable(overrides=...)`. A model not in the table costs 0 and is
flagged `cost_known=False`, so a report can say its cost is missing instead of pretending it was free.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agent.llm.messages import Usage


class ModelPrice(BaseModel):
    """USD per million input and output tokens."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input_per_mtok: float = Field(ge=0)
    output_per_mtok: float = Field(ge=0)


def _p(inp: float, out: float) -> ModelPrice:
    return ModelPrice(input_per_mtok=inp, output_per_mtok=out)


# Keys are model-id prefixes; the longest matching prefix wins, so dated snapshots
# ("gpt-4o-2024-08-06") find their family and "gpt-4o-mini" is not priced as "gpt-4o".
DEFAULT_PRICES: dict[str, ModelPrice] = {
    # OpenAI
    "gpt-4o": _p(2.50, 10.00),
    "gpt-4o-mini": _p(0.15, 0.60),
    "gpt-4.1": _p(2.00, 8.00),
    "gpt-4.1-mini": _p(0.40, 1.60),
    "gpt-4.1-nano": _p(0.10, 0.40),
    "gpt-5": _p(1.25, 10.00),
    "gpt-5-mini": _p(0.25, 2.00),
    "gpt-5-nano": _p(0.05, 0.40),
    "o1": _p(15.00, 60.00),
    "o3": _p(2.00, 8.00),
    "o3-mini": _p(1.10, 4.40),
    "o4-mini": _p(1.10, 4.40),
    # Anthropic
    "claude-opus-4": _p(15.00, 75.00),
    "claude-opus-4-5": _p(5.00, 25.00),
    "claude-sonnet-4": _p(3.00, 15.00),
    "claude-3-7-sonnet": _p(3.00, 15.00),
    "claude-3-5-sonnet": _p(3.00, 15.00),
    "claude-haiku-4-5": _p(1.00, 5.00),
    "claude-3-5-haiku": _p(0.80, 4.00),
    "claude-3-haiku": _p(0.25, 1.25),
    # Google (OpenAI-compatible endpoint), prompts up to 200k tokens
    "gemini-2.5-pro": _p(1.25, 10.00),
    "gemini-2.5-flash": _p(0.30, 2.50),
    "gemini-2.0-flash": _p(0.10, 0.40),
    # DeepSeek
    "deepseek-chat": _p(0.27, 1.10),
    "deepseek-reasoner": _p(0.55, 2.19),
}

_SEPARATORS = ("-", "@", ":", ".", "_")


def _normalise(model: str) -> str:
    # Routers prefix the vendor ("openai/gpt-4o" on OpenRouter); Gemini ids may start with "models/".
    return model.strip().lower().rsplit("/", 1)[-1]


class PriceTable:
    """Model-id prefix -> price, with user overrides taking precedence over the defaults."""

    def __init__(self, overrides: Mapping[str, ModelPrice] | None = None, *, defaults: bool = True):
        self._prices: dict[str, ModelPrice] = dict(DEFAULT_PRICES) if defaults else {}
        for key, price in (overrides or {}).items():
            self._prices[_normalise(key)] = price

    @classmethod
    def from_file(cls, path: str | Path) -> PriceTable:
        """Defaults plus the overrides in a JSON file; a malformed file raises ValueError naming the entry."""
        p = Path(path)
        try:
            raw = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ValueError(f"cannot read price file {p}: {exc}") from None
        if not isinstance(raw, dict):
            raise ValueError(f"price file {p}: expected an object mapping model prefixes to prices")
        overrides: dict[str, ModelPrice] = {}
        for key, value in raw.items():
            try:
                overrides[key] = ModelPrice.model_validate(value)
            except ValidationError as exc:
                raise ValueError(f"price file {p}, entry {key!r}: {exc.errors()[0]['msg']}") from None
        return cls(overrides)

    def lookup(self, model: str) -> ModelPrice | None:
        """The price of the longest table prefix matching `model` at a name boundary, or None."""
        name = _normalise(model)
        best: str | None = None
        for key in self._prices:
            if (name == key or (name.startswith(key) and name[len(key)] in _SEPARATORS)) and (
                best is None or len(key) > len(best)
            ):
                best = key
        return self._prices[best] if best is not None else None

    def cost(self, model: str, usage: Usage) -> tuple[float, bool]:
        """(USD, known) for `usage` on `model`; unknown models give (0.0, False)."""
        price = self.lookup(model)
        if price is None:
            return 0.0, False
        usd = (usage.input_tokens * price.input_per_mtok + usage.output_tokens * price.output_per_mtok) / 1e6
        return usd, True
