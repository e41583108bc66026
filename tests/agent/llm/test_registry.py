"""Model strings: every documented form parses, every malformed one fails with a useful message."""

from __future__ import annotations

import pytest

from agent.llm import (
    ChatProvider,
    ModelStringError,
    UnknownProviderError,
    build_provider,
    parse_model_string,
    provider_names,
    register_provider,
)
from agent.llm.openai_compat import OpenAICompatibleProvider, OpenAIProvider


@pytest.mark.parametrize(
    ("model_string", "provider", "model", "base_url"),
    [
        ("openai:gpt-4o", "openai", "gpt-4o", None),
        ("anthropic:claude-sonnet-4-6", "anthropic", "claude-sonnet-4-6", None),
        ("openai-compatible:http://localhost:8000/v1:qwen2.5-vl", "openai-compatible", "qwen2.5-vl", "http://localhost:8000/v1"),
        ("openai-compatible:http://localhost:11434/v1:qwen2.5vl:7b", "openai-compatible", "qwen2.5vl:7b", "http://localhost:11434/v1"),
        ("openai-compatible:https://api.example.com:qwen", "openai-compatible", "qwen", "https://api.example.com"),
        ("openai-compatible:http://[::1]:8000/v1:m", "openai-compatible", "m", "http://[::1]:8000/v1"),
        ("openai-compatible:http://10.0.0.5:8000:llava", "openai-compatible", "llava", "http://10.0.0.5:8000"),
        ("openrouter:openai/gpt-4o", "openrouter", "openai/gpt-4o", None),
        ("replay:runs/a:b/llm.jsonl", "replay", "runs/a:b/llm.jsonl", None),
    ],
)
def test_valid_model_strings(model_string: str, provider: str, model: str, base_url: str | None) -> None:
    spec = parse_model_string(model_string)
    assert (spec.provider, spec.model, spec.base_url) == (provider, model, base_url)
    assert str(spec) == model_string


@pytest.mark.parametrize(
    ("model_string", "error", "message"),
    [
        ("gpt-4o", ModelStringError, "must look like PROVIDER:MODEL"),
        ("", ModelStringError, "must look like PROVIDER:MODEL"),
        ("openai:", ModelStringError, "names no model"),
        ("openai:   ", ModelStringError, "names no model"),
        ("gpt:4o", UnknownProviderError, "unknown LLM provider 'gpt'; valid: anthropic, "),
        ("openai-compatible:http://localhost:8000/v1", ModelStringError, "expected 'openai-compatible:URL:MODEL'"),
        ("openai-compatible:localhost:8000:qwen", ModelStringError, "with an http"),
        ("openai-compatible:http://localhost:8000/v1:", ModelStringError, "expected 'openai-compatible:URL:MODEL'"),
        ("replay:", ModelStringError, "replay:PATH"),
    ],
)
def test_malformed_model_strings(model_string: str, error: type[Exception], message: str) -> None:
    with pytest.raises(error, match=message):
        parse_model_string(model_string)


def test_unknown_provider_lists_all_valid_ones() -> None:
    with pytest.raises(UnknownProviderError) as info:
        parse_model_string("mistral:large")
    for name in ("openai", "anthropic", "openai-compatible", "replay"):
        assert name in info.value.valid and name in str(info.value)


def test_presets_build_without_network_or_keys() -> None:
    provider = build_provider("gemini:gemini-2.5-flash")
    assert isinstance(provider, OpenAIProvider)
    assert provider.describe() == {
        "provider": "gemini",
        "model": "gemini-2.5-flash",
        "base_url": "https://generativelanguage.googleapis.com/v1beta/openai/",
        "api_key_env": "GEMINI_API_KEY",
        "timeout_s": 120.0,
    }
    assert isinstance(build_provider("openai-compatible:http://h:1/v1:m"), OpenAICompatibleProvider)


def test_registration_rejects_clashes_and_bad_names() -> None:
    with pytest.raises(ValueError, match="already registered"):
        register_provider("openai")(type("Other", (OpenAIProvider,), {}))
    with pytest.raises(ValueError, match="without colons"):
        register_provider("a:b")
    assert set(provider_names()) >= {"openai", "anthropic", "openai-compatible", "replay", "ollama", "deepseek"}
    assert issubclass(OpenAIProvider, ChatProvider)


def test_importing_the_package_does_not_import_the_sdks() -> None:
    import subprocess
    import sys

    code = "import sys, agent.llm; print('openai' in sys.modules, 'anthropic' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_named_endpoint_resolves_only_through_an_explicit_base_url() -> None:
    from agent.llm.provider import ProviderSettings

    spec = parse_model_string("openai-compatible:@lab:qwen2.5vl:7b")
    assert (spec.endpoint_name, spec.model, spec.base_url) == ("lab", "qwen2.5vl:7b", None)
    assert str(spec) == "openai-compatible:@lab:qwen2.5vl:7b"
    # Unresolved, a named endpoint must never fall back to the provider's default host.
    with pytest.raises(ModelStringError, match="only a server's configuration resolves"):
        build_provider("openai-compatible:@lab:qwen")
    provider = build_provider("openai-compatible:@lab:qwen", ProviderSettings(base_url="http://10.1.2.3:8000/v1"))
    assert provider.endpoint == "http://10.1.2.3:8000/v1"
