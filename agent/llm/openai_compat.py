"""OpenAI's chat-completions protocol, through the `openai` SDK: OpenAI itself and every server that
speaks it (vLLM, Ollama, DeepSeek, OpenRouter, Gemini's OpenAI-compatible endpoint).

Images travel as `image_url` parts holding base64 data URLs. `seed` is sent (OpenAI and vLLM honour
it; others ignore it). OpenAI proper gets `max_completion_tokens`, which its reasoning models require;
other servers get the older `max_tokens`, which they all understand.
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

from agent.llm.errors import ModelStringError
from agent.llm.messages import ChatRequest, ImagePart, TextPart, Usage
from agent.llm.provider import Completion, ModelSpec, SdkChatProvider, map_sdk_error
from agent.llm.registry import register_provider

# A named endpoint, resolved by the operator's configuration: '@NAME:MODEL'.
_NAMED_THEN_MODEL = re.compile(r"^@(?P<name>[A-Za-z][A-Za-z0-9_-]{0,63}):(?P<model>\S.*)$")
# scheme://host[:port][/path] then ':' then the model; hosts may be bracketed IPv6 literals, paths
# hold no colon, and the model may hold colons of its own (Ollama tags like 'qwen2.5vl:7b').
_URL_THEN_MODEL = re.compile(
    r"^(?P<url>https?://(?:\[[0-9A-Fa-f:.]+\]|[^/:\[\]\s]+)(?::\d+)?+(?:/[^:\s]*)?):(?P<model>\S.*)$"
)


def to_openai_messages(request: ChatRequest) -> list[dict[str, Any]]:
    """The request's system prompt and turns in chat-completions form."""
    out: list[dict[str, Any]] = []
    if request.system:
        out.append({"role": "system", "content": request.system})
    for message in request.messages:
        if message.role == "assistant":
            out.append({"role": "assistant", "content": message.text()})
            continue
        parts: list[dict[str, Any]] = []
        for part in message.content:
            if isinstance(part, TextPart):
                parts.append({"type": "text", "text": part.text})
            elif isinstance(part, ImagePart):
                url = f"data:{part.media_type};base64,{part.base64()}"
                parts.append({"type": "image_url", "image_url": {"url": url}})
        out.append({"role": "user", "content": parts})
    return out


@register_provider("openai")
class OpenAIProvider(SdkChatProvider):
    """OpenAI's API at its default endpoint; the key comes from OPENAI_API_KEY."""

    default_key_env: ClassVar[str] = "OPENAI_API_KEY"
    default_base_url: ClassVar[str | None] = None
    key_required: ClassVar[bool] = True
    token_limit_param: ClassVar[str] = "max_completion_tokens"

    @property
    def endpoint(self) -> str | None:
        """Settings override, then the model string's URL, then the provider's default."""
        return self.settings.base_url or self.spec.base_url or self.default_base_url

    def _new_client(self, **options: Any) -> Any:
        import openai  # lazy: the SDK costs a noticeable import time

        return openai.OpenAI(**options)

    def complete(self, request: ChatRequest) -> Completion:
        """One chat.completions call."""
        import openai

        client = self._sdk_client()
        params: dict[str, Any] = {
            "model": self.model,
            "messages": to_openai_messages(request),
            self.token_limit_param: request.max_tokens,
        }
        if request.temperature is not None:  # reasoning models (o-series, gpt-5) reject any but their default
            params["temperature"] = request.temperature
        if request.seed is not None:
            params["seed"] = request.seed
        try:
            result = client.chat.completions.create(**params)
        except openai.OpenAIError as exc:
            raise map_sdk_error(exc, openai, self.name, self._key) from None
        if not result.choices:
            return Completion(text="", usage=_usage(result), model=result.model or self.model, finish_reason=None)
        choice = result.choices[0]
        return Completion(
            text=choice.message.content or "",
            usage=_usage(result),
            model=result.model or self.model,
            finish_reason=choice.finish_reason,
        )


def _usage(result: Any) -> Usage:
    usage = getattr(result, "usage", None)  # some compatible servers omit it
    if usage is None:
        return Usage()
    return Usage(input_tokens=usage.prompt_tokens or 0, output_tokens=usage.completion_tokens or 0)


@register_provider("openai-compatible")
class OpenAICompatibleProvider(OpenAIProvider):
    """Any chat-completions server: `openai-compatible:http://host:port/v1:MODEL`, or `openai-compatible:@NAME:MODEL`
    for an endpoint the operator named (the only form a REST server accepts from its clients).

    The key is read from OPENAI_COMPATIBLE_API_KEY (or the configured variable); self-hosted servers
    usually need none, so an unset variable sends a placeholder.
    """

    default_key_env = "OPENAI_COMPATIBLE_API_KEY"
    key_required = False
    token_limit_param = "max_tokens"

    @classmethod
    def parse_target(cls, target: str, model_string: str) -> ModelSpec:
        """Split `URL:MODEL` (knowing the URL has colons of its own) or `@NAME:MODEL`."""
        named = _NAMED_THEN_MODEL.match(target.strip())
        if named is not None:
            return ModelSpec(provider=cls.name, model=named["model"].strip(), endpoint_name=named["name"])
        match = _URL_THEN_MODEL.match(target.strip())
        if match is None:
            raise ModelStringError(
                f"model string {model_string!r}: expected 'openai-compatible:URL:MODEL' with an http(s) URL, "
                f"e.g. 'openai-compatible:http://localhost:8000/v1:qwen2.5-vl', or 'openai-compatible:@NAME:MODEL' "
                "for an endpoint named in the server's configuration"
            )
        return ModelSpec(provider=cls.name, model=match["model"].strip(), base_url=match["url"])


def _preset(name: str, base_url: str, key_env: str, required: bool = True) -> None:
    """Register a named OpenAI-compatible service so `name:MODEL` works without spelling the URL."""
    cls = type(
        f"{name.title().replace('-', '')}Provider",
        (OpenAIProvider,),
        {
            "__doc__": f"{name} through its OpenAI-compatible endpoint {base_url}; key from {key_env}.",
            "__module__": __name__,
            "default_key_env": key_env,
            "default_base_url": base_url,
            "key_required": required,
            "token_limit_param": "max_tokens",
        },
    )
    register_provider(name)(cls)


_preset("deepseek", "https://api.deepseek.com/v1", "DEEPSEEK_API_KEY")
_preset("openrouter", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY")
_preset("gemini", "https://generativelanguage.googleapis.com/v1beta/openai/", "GEMINI_API_KEY")
_preset("ollama", "http://localhost:11434/v1", "OLLAMA_API_KEY", required=False)
