"""`python -m agent.integrations.llama_server --model GGUF ...`: llama-cpp-python's OpenAI-compatible server,
with a chat format for Gemma 3 that reads what JARVIS sends.

JARVIS's providers send every message's content as a list of parts (text and images). llama-cpp-python's
built-in formatters keep string contents only (a list becomes nothing) and its Gemma format drops the system
message, and a GGUF without a chat template falls back to Llama 2's. `gemma3-text` lays the turns out as
Gemma 3's own template does: the system text at the head of the first user turn, each turn between
`<start_of_turn>` and `<end_of_turn>`; text parts are joined and images replaced by a note, because the
270M model reads none. Every other argument goes to `llama_cpp.server` unchanged.
"""

from __future__ import annotations

import sys
from typing import Any

from llama_cpp.llama_chat_format import ChatFormatterResponse, register_chat_format

CHAT_FORMAT = "gemma3-text"
IMAGE_NOTE = "[an image is shown here; this model cannot see it]"
_END = "<end_of_turn>\n"


def content_text(content: Any) -> str:
    """A message's text: a string as is, a list of parts joined (images as a note)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    out = []
    for part in content:
        kind = part.get("type") if isinstance(part, dict) else None
        out.append(part.get("text", "") if kind == "text" else IMAGE_NOTE if kind == "image_url" else "")
    return "".join(out)


@register_chat_format(CHAT_FORMAT)
def format_gemma3_text(messages: list[dict[str, Any]], **kwargs: Any) -> ChatFormatterResponse:
    """Gemma 3's turn layout over JARVIS's messages."""
    system = "\n\n".join(content_text(m["content"]) for m in messages if m["role"] == "system")
    prompt, first_user = "", True
    for m in messages:
        if m["role"] == "system":
            continue
        text = content_text(m.get("content"))
        if m["role"] == "user" and first_user and system:
            text, first_user = f"{system}\n\n{text}", False
        role = "model" if m["role"] == "assistant" else "user"
        prompt += f"<start_of_turn>{role}\n{text}{_END}"
    return ChatFormatterResponse(prompt=prompt + "<start_of_turn>model\n", stop=_END.strip())


def main() -> None:
    """Run llama_cpp.server with the gemma3-text chat format unless another is named."""
    from llama_cpp.server.__main__ import main as serve

    if "--chat_format" not in sys.argv:
        sys.argv += ["--chat_format", CHAT_FORMAT]
    serve()


if __name__ == "__main__":
    main()
