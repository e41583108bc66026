"""A running tally of one episode's model usage: requests, cache hits, tokens, dollars, retries."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.llm.messages import ChatResponse

if TYPE_CHECKING:
    from jarvis_sim.records import TokenAccount


class UsageAccount:
    """Adds up ChatResponses. Cached answers count their tokens but no cost: nothing was spent on them."""

    def __init__(self) -> None:
        self.requests = 0
        self.cached = 0
        self.attempts = 0
        self.input_tokens = 0
        self.output_tokens = 0
        self.cost_usd = 0.0
        self.unpriced_models: set[str] = set()

    def add(self, response: ChatResponse) -> None:
        """Count one answer."""
        self.requests += 1
        self.attempts += response.attempts
        self.input_tokens += response.usage.input_tokens
        self.output_tokens += response.usage.output_tokens
        if response.cached:
            self.cached += 1
            return
        self.cost_usd += response.cost_usd
        if not response.cost_known:
            self.unpriced_models.add(response.model)

    @property
    def cost_complete(self) -> bool:
        """True when every fresh answer had a known price."""
        return not self.unpriced_models

    def summary(self) -> dict[str, Any]:
        """Plain-data view, for logs and run summaries."""
        return {
            "requests": self.requests,
            "cached": self.cached,
            "attempts": self.attempts,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cost_usd": round(self.cost_usd, 6),
            "cost_complete": self.cost_complete,
            "unpriced_models": sorted(self.unpriced_models),
        }

    def to_record(self) -> TokenAccount:
        """The EpisodeRecord's TokenAccount for this tally."""
        from jarvis_sim.records import TokenAccount

        return TokenAccount(
            input=self.input_tokens,
            output=self.output_tokens,
            cost_usd=self.cost_usd,
            requests=self.requests,
            cached=self.cached,
        )
