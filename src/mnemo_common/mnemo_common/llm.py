"""OpenAI-compatible chat access shared by the captioner, analyzer, keyframe selector and planner.

An endpoint is optional everywhere in mnemo: ``LlmConfig.from_env`` returns ``None`` when no
base URL is configured, and callers fall back to their offline path.
"""
from __future__ import annotations

import base64
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional


@dataclass(frozen=True)
class LlmConfig:
    base_url: str
    model: str
    api_key: str = "not-needed"
    timeout: float = 30.0
    vision: bool = True  # whether images may be attached to messages

    @staticmethod
    def from_values(base_url: str, model: str, api_key: str = "", timeout: float = 30.0,
                    vision: bool = True) -> Optional["LlmConfig"]:
        """A config from node parameters; None when no endpoint is set."""
        if not base_url:
            return None
        return LlmConfig(base_url, model or "gpt-4o-mini", api_key or os.environ.get("OPENAI_API_KEY", "not-needed"),
                         timeout, vision)

    @staticmethod
    def from_env() -> Optional["LlmConfig"]:
        """MNEMO_LLM_BASE_URL / MNEMO_LLM_MODEL / OPENAI_API_KEY; None when unset."""
        return LlmConfig.from_values(os.environ.get("MNEMO_LLM_BASE_URL", ""),
                                     os.environ.get("MNEMO_LLM_MODEL", ""),
                                     os.environ.get("OPENAI_API_KEY", ""))


class LlmError(RuntimeError):
    """The endpoint failed or answered something unusable."""


class ChatClient:
    """Thin wrapper over ``openai.OpenAI`` with the few calls mnemo makes."""

    def __init__(self, config: LlmConfig):
        import openai  # imported lazily: offline paths never need it

        self.config = config
        self._client = openai.OpenAI(base_url=config.base_url, api_key=config.api_key,
                                     timeout=config.timeout, max_retries=0)

    def chat(self, messages: list[dict], tools: Optional[list[dict]] = None,
             json_mode: bool = False, temperature: float = 0.0) -> Any:
        """Returns the first choice's message object; raises LlmError on transport failure."""
        kwargs: dict[str, Any] = {"model": self.config.model, "messages": messages, "temperature": temperature}
        if tools:
            kwargs["tools"] = tools
        if json_mode:
            kwargs["response_format"] = {"type": "json_object"}
        try:
            response = self._client.chat.completions.create(**kwargs)
        except json.JSONDecodeError as exc:
            raise LlmError(f"{self.config.base_url} answered something that is not JSON ({exc.msg})") from exc
        except Exception as exc:  # openai raises many subclasses; all mean "no usable answer"
            raise LlmError(f"chat request to {self.config.base_url} failed: {type(exc).__name__}: {exc}") from exc
        return first_message(response, self.config.base_url)

    def chat_json(self, messages: list[dict]) -> dict:
        """Ask for a JSON object; raises LlmError when the answer is not one."""
        message = self.chat(messages, json_mode=True)
        return parse_json_object(message.content or "")


def first_message(response: Any, base_url: str) -> Any:
    """The first choice's message of a chat completion; LlmError naming what is wrong with any
    other answer (the client parses whatever JSON comes back without checking its shape)."""
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise LlmError(f"{base_url} answered no chat completion (no choices): {str(response)[:200]}")
    message = getattr(choices[0], "message", None)
    if message is None:
        raise LlmError(f"{base_url} answered a chat completion without a message: {str(choices[0])[:200]}")
    return message


def parse_json_object(text: str) -> dict:
    """Parse a model's answer as one JSON object, tolerating a fenced code block around it."""
    stripped = text.strip()
    if stripped.startswith("```"):
        stripped = stripped.strip("`")
        if stripped.lower().startswith("json"):
            stripped = stripped[4:]
    try:
        value = json.loads(stripped)
    except json.JSONDecodeError as exc:
        raise LlmError(f"answer is not valid JSON: {exc.msg} at position {exc.pos}") from exc
    if not isinstance(value, dict):
        raise LlmError(f"answer is JSON but not an object (got {type(value).__name__})")
    return value


def image_part(path: str | Path, detail: str = "low") -> dict:
    """An image content part for a chat message, read from a PNG or JPEG file."""
    p = Path(path)
    return image_bytes_part(p.read_bytes(), "image/png" if p.suffix.lower() == ".png" else "image/jpeg", detail)


def image_bytes_part(data: bytes, mime: str = "image/jpeg", detail: str = "low") -> dict:
    """An image content part for a chat message from encoded image bytes (an image never written to disk)."""
    return {"type": "image_url",
            "image_url": {"url": f"data:{mime};base64,{base64.b64encode(data).decode()}", "detail": detail}}


def quote_world_text(text: str) -> str:
    """Quote text that comes from the world (captions, labels, object text) for a prompt.

    World text is data, never instructions: it is JSON-encoded so it cannot close the quote
    or pose as a new section of the prompt.
    """
    return json.dumps(str(text), ensure_ascii=True)
