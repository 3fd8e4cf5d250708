"""The OpenAI-compatible backend: one chat completion per call, through the official `openai` client.

It works with any server that speaks the OpenAI chat API (vLLM, SGLang, Ollama, llama.cpp, hosted APIs).
The client's own retries are off: `heedful.llm.engine` retries with its own policy and counts every call.
The API key is read from an environment variable when the backend is built and is kept in memory only.
"""

from __future__ import annotations

import importlib.util
import ipaddress
import json
import os
import threading
from typing import Any
from urllib.parse import urlparse

from heedful.errors import ConfigError, MissingDependencyError
from heedful.llm.request import ChatRequest, ChatResult
from heedful.llm.retry import TRANSIENT_STATUS, parse_retry_after
from heedful.redact import redact, register_secret

LLM_INSTALL_HINT = "pip install 'heedful[llm]'"
LOCAL_PLACEHOLDER_KEY = "not-needed"


def require(module: str, purpose: str) -> None:
    """Raise MissingDependencyError now if `module` is not installed (found without importing it)."""
    if importlib.util.find_spec(module) is None:
        raise MissingDependencyError(f"{purpose} needs {module}: {LLM_INSTALL_HINT} (or pip install {module})")


def import_openai() -> Any:
    """The `openai` module, or MissingDependencyError with the install command."""
    try:
        import openai
    except ImportError as err:
        raise MissingDependencyError(
            f"language-model agents need the openai client: {LLM_INSTALL_HINT} (or pip install openai)"
        ) from err
    return openai


class CallError(Exception):
    """One failed call. `transient` failures are retried; `timeout` says the server did not answer in time."""

    def __init__(self, message: str, transient: bool, *, timeout: bool = False, retry_after: float | None = None):
        message = redact(message)
        super().__init__(message)
        self.message = message
        self.transient = transient
        self.timeout = timeout
        self.retry_after = retry_after


def is_loopback(base_url: str) -> bool:
    """Whether `base_url` points at this machine (a local server needs no real API key)."""
    host = urlparse(base_url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def resolve_api_key(api_key_env: str, base_url: str | None) -> str:
    """The API key from the environment variable `api_key_env`.

    A local server gets a placeholder when the variable is unset; a remote one needs the key.

    Raises:
        ConfigError: the variable is unset and the server is not on this machine.
    """
    key = os.environ.get(api_key_env, "")
    if key:
        register_secret(key)  # a server that echoes it must not get it into a record
        return key
    if base_url is not None and is_loopback(base_url):
        return LOCAL_PLACEHOLDER_KEY
    where = base_url or "the OpenAI API"
    raise ConfigError(
        f"no API key for {where}: set the environment variable {api_key_env}, or name the variable that holds "
        "it with --api-key-env NAME (the key is read from the environment only and never stored)"
    )


def _short(text: object, limit: int = 300) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


class OpenAIBackend:
    """Chat completions from an OpenAI-compatible server.

    Args:
        base_url: The server's API root (e.g. http://127.0.0.1:8080/v1); None for the OpenAI API.
        model: The model name the server serves.
        api_key: The key (see `resolve_api_key`); never written anywhere.
        timeout: Seconds to wait for one answer.
        kind: The backend kind in the cache key ("openai"; the embedded backend reuses this class).
    """

    def __init__(self, base_url: str | None, model: str, api_key: str, timeout: float, kind: str = "openai") -> None:
        if not timeout > 0:
            raise ConfigError(f"--timeout must be positive, got {timeout}")
        self.base_url = base_url
        self.model = model
        self.timeout = float(timeout)
        self.kind = kind
        self._api_key = api_key
        register_secret(api_key)
        self._client: Any = None
        self._lock = threading.Lock()

    def identity(self) -> dict[str, Any]:
        """What, besides the request, decides the answer: part of the cache key."""
        return {"kind": self.kind, "base_url": self.base_url or "https://api.openai.com/v1", "model": self.model}

    def client(self) -> Any:
        """The shared `openai.OpenAI` client, created on first use (it is thread-safe)."""
        with self._lock:
            if self._client is None:
                openai = import_openai()
                self._client = openai.OpenAI(
                    base_url=self.base_url, api_key=self._api_key, max_retries=0, timeout=self.timeout
                )
            return self._client

    def send(self, request: ChatRequest) -> ChatResult:
        """One call. Raises CallError, saying whether a retry may help."""
        openai = import_openai()
        try:
            response = self.client().chat.completions.create(**request.body(self.model))
        except openai.APITimeoutError as exc:
            raise CallError(f"no answer from {self._where()} within {self.timeout:g} s", True, timeout=True) from exc
        except openai.APIConnectionError as exc:
            raise CallError(f"cannot reach {self._where()}: {_short(exc)}", True) from exc
        except openai.APIStatusError as exc:
            status = int(exc.status_code)
            transient = status in TRANSIENT_STATUS or status >= 500
            retry_after = parse_retry_after(dict(exc.response.headers))
            message = f"HTTP {status} from {self._where()}: {_short(exc.message)}"
            raise CallError(message, transient, retry_after=retry_after) from exc
        except openai.APIError as exc:
            raise CallError(f"bad answer from {self._where()}: {_short(exc)}", False) from exc
        except json.JSONDecodeError as exc:  # an HTTP 200 whose body is not JSON (a proxy's error page, a cut body)
            raise CallError(f"{self._where()} answered with a body that is not JSON ({exc.msg})", False) from exc
        return result_from_response(response, self._where())

    def _where(self) -> str:
        return self.base_url or "the OpenAI API"

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None


def result_from_response(response: Any, where: str) -> ChatResult:
    """The text, finish reason and token counts of a chat completion. A missing text is an empty one.

    Raises:
        CallError: the answer is not a chat completion (no choice, a text that is not text, token counts that are
            not non-negative integers): a protocol error, recorded as `interface_error`, never as the model's answer.
    """
    choices = getattr(response, "choices", None) or []
    if not isinstance(choices, list) or not choices:
        raise CallError(f"{where} answered without any choice: {_short(response)}", False)
    choice = choices[0]
    message = getattr(choice, "message", None)
    content = getattr(message, "content", None)
    if content is not None and not isinstance(content, str):
        raise CallError(f"{where} answered a message content that is not text: {_short(content)}", False)
    usage = getattr(response, "usage", None)
    return ChatResult(
        text=content or "",
        finish_reason=getattr(choice, "finish_reason", None),
        prompt_tokens=_token_count(usage, "prompt_tokens", where),
        completion_tokens=_token_count(usage, "completion_tokens", where),
    )


def _token_count(usage: Any, name: str, where: str) -> int:
    value = getattr(usage, name, None)
    if value is None:
        return 0  # a server that reports no usage: nothing to count
    if type(value) is not int or value < 0:
        raise CallError(
            f"{where} reported {name}={_short(repr(value), 60)}; token counts are non-negative integers", False
        )
    return value
