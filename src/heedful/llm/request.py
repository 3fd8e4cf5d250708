"""Chat requests and results: what is sent to an OpenAI-compatible server, what comes back, and the cache key.

A request is a plain value (messages, optional JSON schema, sampling parameters). Every sampling parameter
is sent explicitly: llama.cpp, for one, defaults to temperature 0.8 and a random seed.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
from dataclasses import asdict, dataclass
from typing import Any

from heedful.errors import ConfigError

SEED_MODULO = 2**31
"""Sampling seeds are sent below 2**31: llama.cpp reads them as 32-bit, some servers as signed."""


@dataclass(frozen=True)
class Sampling:
    """Sampling parameters, all sent with every request. `seed=None` sends no seed."""

    temperature: float = 0.0
    top_p: float = 1.0
    max_tokens: int = 128
    seed: int | None = None

    def __post_init__(self) -> None:
        if not (math.isfinite(self.temperature) and 0.0 <= self.temperature <= 2.0):
            raise ConfigError(f"temperature must be between 0 and 2, got {self.temperature}")
        if not (math.isfinite(self.top_p) and 0.0 < self.top_p <= 1.0):
            raise ConfigError(f"top_p must be in (0, 1], got {self.top_p}")
        if self.max_tokens < 1:
            raise ConfigError(f"max_tokens must be at least 1, got {self.max_tokens}")
        if self.seed is not None and not 0 <= self.seed < SEED_MODULO:
            raise ConfigError(f"seed must be in [0, 2**31), got {self.seed}")


@dataclass(frozen=True)
class ChatRequest:
    """One chat completion request.

    `schema` is a JSON schema sent as `response_format = json_schema` (constrained decoding), or None to
    leave the answer format to the prompt alone. `images` are PNG files sent with the last (user) message
    as OpenAI image content parts (data URLs) for vision-language models; the cache key covers their bytes.
    """

    messages: tuple[tuple[str, str], ...]
    sampling: Sampling
    schema: dict[str, Any] | None = None
    schema_name: str = "answer"
    images: tuple[bytes, ...] = ()

    @property
    def cacheable(self) -> bool:
        """Greedy requests, and sampled ones with a seed, are reproducible; sampled ones without a seed are not."""
        return self.sampling.temperature == 0.0 or self.sampling.seed is not None

    def body(self, model: str) -> dict[str, Any]:
        """Keyword arguments of `client.chat.completions.create` (also the JSON body sent)."""
        body: dict[str, Any] = {
            "model": model,
            "messages": self._messages(),
            "temperature": self.sampling.temperature,
            "top_p": self.sampling.top_p,
            "max_tokens": self.sampling.max_tokens,
        }
        if self.sampling.seed is not None:
            body["seed"] = self.sampling.seed
        if self.schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": self.schema_name, "schema": self.schema, "strict": True},
            }
        return body

    def _messages(self) -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = [{"role": role, "content": content} for role, content in self.messages]
        if self.images:
            # Images first, then the text that refers to them (the order vision-language models are tuned on).
            parts: list[dict[str, Any]] = [image_part(png) for png in self.images]
            messages[-1]["content"] = [*parts, {"type": "text", "text": messages[-1]["content"]}]
        return messages


def image_part(png: bytes) -> dict[str, Any]:
    """An OpenAI image content part carrying `png` inline as a base64 data URL."""
    return {"type": "image_url", "image_url": {"url": "data:image/png;base64," + base64.b64encode(png).decode()}}


@dataclass(frozen=True)
class ChatResult:
    """What the server answered: the text, why it stopped, and the tokens it counted."""

    text: str
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> ChatResult:
        data = json.loads(text)
        return cls(
            text=str(data["text"]),
            finish_reason=data["finish_reason"],
            prompt_tokens=int(data["prompt_tokens"]),
            completion_tokens=int(data["completion_tokens"]),
        )


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no whitespace, so equal values give equal text."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def cache_key(identity: dict[str, Any], request: ChatRequest) -> str:
    """The response-cache key of `request` sent to the backend described by `identity`.

    The key covers the whole request (model, messages, schema, every sampling parameter, seed) and the
    backend's identity (its kind, base URL and model name, or the GGUF file's sha256 for an embedded
    model), so a cached answer is never reused for a different request.
    """
    payload = {"backend": identity, "request": request.body(model=str(identity.get("model", "")))}
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()
