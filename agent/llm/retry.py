"""Retrying transient model failures: exponential backoff with jitter, and the server's Retry-After.

Retried: rate limits (429), timeouts, 5xx and broken connections. Never retried: other 4xx answers
(a bad request or a wrong key fails the same way every time). The SDKs' own retries are switched off
so this policy is the only one, and it is the one saved with a run's config.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field

from agent.llm.errors import ProviderError, RateLimitedError

log = logging.getLogger(__name__)

T = TypeVar("T")


class RetryPolicy(BaseModel):
    """How often and how patiently to retry a failed model call."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_attempts: int = Field(default=5, ge=1, description="Attempts in all, the first included.")
    base_delay_s: float = Field(default=1.0, ge=0, description="Backoff before the first retry; doubles each time.")
    max_delay_s: float = Field(default=30.0, ge=0, description="Cap on one backoff wait.")
    max_retry_after_s: float = Field(
        default=120.0, ge=0, description="A Retry-After longer than this is not waited out: the error is raised."
    )

    def backoff_s(self, retry_index: int, rng: random.Random) -> float:
        """Wait before retry number `retry_index` (1-based): equal jitter over an exponential step."""
        step = min(self.max_delay_s, self.base_delay_s * (2 ** (retry_index - 1)))
        # Half fixed, half random: spreads clients that failed together without ever retrying at once.
        return step / 2 + rng.uniform(0, step / 2)

    def wait_s(self, retry_index: int, error: ProviderError, rng: random.Random) -> float | None:
        """Seconds to wait before retrying after `error`, or None when it should not be retried."""
        if not error.retryable or retry_index >= self.max_attempts:
            return None
        if isinstance(error, RateLimitedError) and error.retry_after_s is not None:
            if error.retry_after_s > self.max_retry_after_s:
                return None
            return error.retry_after_s
        return self.backoff_s(retry_index, rng)


def call_with_retries(
    attempt: Callable[[], T],
    policy: RetryPolicy,
    *,
    sleep: Callable[[float], None] = time.sleep,
    rng: random.Random | None = None,
    time_left: Callable[[], float] | None = None,
) -> tuple[T, int]:
    """Run `attempt` until it succeeds or the policy gives up; returns (result, attempts made).

    With `time_left` (seconds before the call's total deadline), no retry starts whose wait would
    end after the deadline: the last error is raised instead.
    """
    rng = rng or random.Random()
    tries = 0
    while True:
        tries += 1
        try:
            return attempt(), tries
        except ProviderError as error:
            wait = policy.wait_s(tries, error, rng)
            if wait is None or (time_left is not None and wait >= time_left()):
                raise
            log.warning("LLM call failed (%s); retry %d of %d in %.2f s", error, tries, policy.max_attempts - 1, wait)
            sleep(wait)
