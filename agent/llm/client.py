"""The client the agent talks to: a provider plus retries, the response cache, pricing and accounting.

`LLMConfig` is what a run saves (model string, timeouts, retry policy, cache settings, the *name* of the
key's environment variable: never the key); `build_client(config)` turns it into an `LLMClient`.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from agent.llm.account import UsageAccount
from agent.llm.cache import CacheMode, ResponseCache, cache_key
from agent.llm.deadline import call_deadline, episode_time_left, now
from agent.llm.errors import (
    AnswerTooLargeError,
    CacheMissError,
    EpisodeDeadlineError,
    ProviderError,
    ProviderTimeoutError,
)
from agent.llm.messages import ChatRequest, ChatResponse
from agent.llm.pricing import PriceTable
from agent.llm.provider import ChatProvider, ProviderSettings
from agent.llm.registry import build_provider
from agent.llm.replay import ReplayRecorder
from agent.llm.retry import RetryPolicy, call_with_retries
from jarvis_sim.text import storable

log = logging.getLogger(__name__)

DEFAULT_MAX_ANSWER_BYTES = 8 * 1024 * 1024  # 2M tokens of text: far above any max_tokens a request asks for


class LLMConfig(BaseModel):
    """Everything that chooses and shapes model calls; safe to store with a run's results."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str = Field(description="Model string, e.g. 'openai:gpt-4o' or 'replay:answers.jsonl'.")
    timeout_s: float = Field(default=120.0, gt=0, description="Total seconds of one model call: connect, every "
                             "read, every retry and backoff (agent.llm.deadline).")
    api_key_env: str | None = Field(default=None, description="Environment variable with the key, if not the provider's default.")
    base_url: str | None = Field(default=None, description="Endpoint override for the chosen provider.")
    retry: RetryPolicy = RetryPolicy()
    cache_dir: Path | None = Field(default=None, description="Response cache directory; None disables caching.")
    cache_mode: CacheMode = Field(default="readwrite", description="'readonly' fails on a miss instead of calling the model.")
    record_to: Path | None = Field(default=None, description="Append every answer to this keyed replay file.")
    prices_file: Path | None = Field(default=None, description="JSON price overrides (see agent.llm.pricing).")
    max_answer_bytes: int = Field(default=DEFAULT_MAX_ANSWER_BYTES, ge=1024, description="Largest HTTP answer (JSON "
                                  "envelope included) a model call accepts; a larger one is refused while it arrives.")


class LLMClient:
    """Sends ChatRequests through one provider, with retries, caching, pricing and per-episode accounting."""

    def __init__(
        self,
        provider: ChatProvider,
        *,
        retry: RetryPolicy | None = None,
        cache: ResponseCache | None = None,
        prices: PriceTable | None = None,
        recorder: ReplayRecorder | None = None,
        sleep: Callable[[float], None] = time.sleep,
        max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES,
    ):
        self.provider = provider
        self.retry = retry or RetryPolicy()
        self.cache = cache if provider.cacheable else None
        self.prices = prices or PriceTable()
        self.recorder = recorder
        self.total = UsageAccount()
        self._sleep = sleep
        self._rng = random.Random()
        self.max_answer_bytes = max_answer_bytes

    def chat(self, request: ChatRequest, account: UsageAccount | None = None) -> ChatResponse:
        """Answer `request`: from the cache when possible, otherwise from the provider (with retries)."""
        response = self._cached(request) if self.cache is not None else None
        if response is None:
            response = self._fresh(request)
        for acc in (self.total, account):
            if acc is not None:
                acc.add(response)
        if self.recorder is not None:
            self.recorder.record(request, response)
        return response

    def _cached(self, request: ChatRequest) -> ChatResponse | None:
        assert self.cache is not None
        key = cache_key(self.provider.identity(), request)
        hit = self.cache.get(key)
        if hit is not None:
            log.debug("LLM cache hit %s", key[:16])
            return hit.model_copy(update={"cached": True, "attempts": 0, "latency_s": 0.0})
        if self.cache.mode == "readonly":
            raise CacheMissError(
                f"read-only response cache {self.cache.root} has no answer for this request to "
                f"{self.provider.spec} (key {key[:16]}...)"
            )
        return None

    def _fresh(self, request: ChatRequest) -> ChatResponse:
        started = [0.0]
        # One instant ends the whole call: its own timeout, or the episode's wall budget when sooner.
        own = now() + self.provider.settings.timeout_s
        episode_left = episode_time_left()
        deadline = min(own, now() + episode_left)
        by_episode = deadline < own

        def time_left() -> float:
            return deadline - now()

        def attempt() -> Any:
            if time_left() <= 0:
                raise ProviderTimeoutError("total deadline passed", provider=self.provider.name)
            started[0] = time.perf_counter()
            with call_deadline(deadline, self.max_answer_bytes) as counted:
                try:
                    return self.provider.complete(request)
                except ProviderError as exc:
                    if counted is not None and counted.exceeded:
                        raise AnswerTooLargeError(
                            f"answer above {self.max_answer_bytes} bytes (max_answer_bytes)",
                            provider=self.provider.name, detail=exc.detail) from None
                    raise

        try:
            if episode_left <= 0:
                raise ProviderTimeoutError("no time left", provider=self.provider.name)
            completion, attempts = call_with_retries(attempt, self.retry, sleep=self._sleep, rng=self._rng,
                                                     time_left=time_left)
        except ProviderTimeoutError as exc:
            if by_episode:  # the episode's budget, not the call's own timeout, is what gave up
                raise EpisodeDeadlineError("the episode's wall-clock budget ran out during a model call",
                                           provider=self.provider.name, detail=exc.detail) from None
            raise
        latency = time.perf_counter() - started[0]
        if self.provider.free:
            cost, known = 0.0, True
        else:
            cost, known = self.prices.cost(self.provider.model, completion.usage)
        response = ChatResponse(
            text=storable(completion.text),  # a lone surrogate in an answer must not fail the episode's record
            usage=completion.usage,
            cost_usd=cost,
            cost_known=known,
            latency_s=latency,
            model=completion.model or self.provider.model,
            provider=self.provider.name,
            finish_reason=completion.finish_reason,
            cached=False,
            attempts=attempts,
            request_hash=request.content_hash(),
        )
        if self.cache is not None:
            self.cache.put(cache_key(self.provider.identity(), request), self.provider.identity(), request, response)
        return response

    def describe(self) -> dict[str, Any]:
        """What a record stores about this client: provider description and policies, no secrets."""
        return {
            **self.provider.describe(),
            "retry": self.retry.model_dump(),
            "cache_dir": str(self.cache.root) if self.cache is not None else None,
            "cache_mode": self.cache.mode if self.cache is not None else "off",
        }

    def __repr__(self) -> str:
        return f"LLMClient({self.provider!r})"

    def __reduce__(self) -> Any:
        raise TypeError("LLMClient cannot be pickled; it holds a provider with credentials")


def build_client(config: LLMConfig, *, sleep: Callable[[float], None] = time.sleep) -> LLMClient:
    """Build the provider named by `config.model` and wrap it with the configured policies."""
    provider = build_provider(
        config.model,
        ProviderSettings(timeout_s=config.timeout_s, api_key_env=config.api_key_env, base_url=config.base_url),
    )
    cache = None
    if config.cache_dir is not None and config.cache_mode != "off":
        cache = ResponseCache(config.cache_dir, config.cache_mode)
    prices = PriceTable.from_file(config.prices_file) if config.prices_file is not None else PriceTable()
    recorder = ReplayRecorder(config.record_to) if config.record_to is not None else None
    return LLMClient(provider, retry=config.retry, cache=cache, prices=prices, recorder=recorder, sleep=sleep,
                     max_answer_bytes=config.max_answer_bytes)
