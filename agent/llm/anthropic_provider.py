"""Anthropic's Messages API through the `anthropic` SDK: `anthropic:claude-...`.

Images travel as base64 `image` blocks. The Messages API has no seed parameter, and the API version the
SDK 2.x sends rejects sampling parameters (temperature, top_p, top_k) for every model; the SDK dropped
them too. So `seed` and `temperature` only take part in the cache key here. The key comes from ANTHROPIC_API_KEY (or the configured variable).
"""

from __future__ import annotations

from typing import Any

from agent.llm.messages import ChatRequest, ImagePart, TextPart, Usage
from agent.llm.provider import Completion, SdkChatProvider, map_sdk_error
from agent.llm.registry import register_provider


def to_anthropic_messages(request: ChatRequest) -> list[dict[str, Any]]:
    """The request's turns as Messages API content blocks (the system prompt goes separately)."""
    out: list[dict[str, Any]] = []
    for message in request.messages:
        blocks: list[dict[str, Any]] = []
        for part in message.content:
            if isinstance(part, TextPart):
                blocks.append({"type": "text", "text": part.text})
            elif isinstance(part, ImagePart):
                source = {"type": "base64", "media_type": part.media_type, "data": part.base64()}
                blocks.append({"type": "image", "source": source})
        out.append({"role": message.role, "content": blocks})
    return out


@register_provider("anthropic")
class AnthropicProvider(SdkChatProvider):
    """Claude models through the Messages API."""

    default_key_env = "ANTHROPIC_API_KEY"

    def _new_client(self, **options: Any) -> Any:
        import anthropic  # lazy: the SDK costs a noticeable import time

        return anthropic.Anthropic(**options)

    def _httpx_module(self) -> Any:
        """anthropic 2.x is built on httpx2 (the same API under another name); 1.x on httpx."""
        import anthropic._base_client as base

        return getattr(base, "httpx2", None) or getattr(base, "httpx", None) or super()._httpx_module()

    def complete(self, request: ChatRequest) -> Completion:
        """One messages.create call."""
        import anthropic

        client = self._sdk_client()
        params: dict[str, Any] = {
            "model": self.model,
            "messages": to_anthropic_messages(request),
            "max_tokens": request.max_tokens,
        }
        if request.system:
            params["system"] = request.system
        try:
            result = client.messages.create(**params)
        except anthropic.AnthropicError as exc:
            raise map_sdk_error(exc, anthropic, self.name, self._key) from None
        text = "".join(block.text for block in result.content if getattr(block, "type", None) == "text")
        usage = result.usage
        # Prompt-cache reads and writes are input tokens too (priced differently; see pricing's caveat).
        input_tokens = (
            (usage.input_tokens or 0)
            + (getattr(usage, "cache_creation_input_tokens", None) or 0)
            + (getattr(usage, "cache_read_input_tokens", None) or 0)
        )
        return Completion(
            text=text,
            usage=Usage(input_tokens=input_tokens, output_tokens=usage.output_tokens or 0),
            model=result.model or self.model,
            finish_reason=result.stop_reason,
        )
