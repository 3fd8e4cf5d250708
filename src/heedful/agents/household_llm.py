"""What the household language-model agents (Reasoner, Prompter) share: options, templates, the call limit.

Both are `llm` agents (any backend: the embedded SmolLM2 by default, `base_url` for an OpenAI-compatible
server, `gguf` for another model file; the same sampling, seed, cache, budget and concurrency options).
By default answers are free text read by the paper's rule (`household_answers`) and no JSON schema is sent
(the paper's setting). `constrain=True` (`--constrain`) is an opt-in mode for models too small to keep the
format: each question carries a JSON schema and the JSON answer is turned back into the paper's text and read
by the same rule (`household_json`); the manifest's `constrained` says which mode ran.

Each call of `act` is one `Turn`: it may ask the model zero, one or two questions and ends with a tool call,
a parse failure or the end of the episode. Every question is booked as a query (kind, time step, the raw
answer, what it was read as or why it could not be, finish reason, tokens, cache hit) in the episode
record's `prediction.model_queries`. At most `max_model_calls` questions (default 15, the paper's limit,
counted whether the cache or the model answers) are asked per episode; a turn that needs one more ends the
episode with `prediction.ended_by = "model_call_limit"`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from heedful.agents.household_answers import Reading
from heedful.agents.household_json import REASONING_CHARS, JsonQuestion, choice_question
from heedful.agents.household_text import scene_fields
from heedful.agents.llm import SessionAgent, check_llm_kwargs
from heedful.errors import ConfigError
from heedful.llm.prompts import PromptTemplate, load_prompt
from heedful.llm.request import ChatRequest
from heedful.replies import AgentReply
from heedful.suites.household.observation import HouseholdObservation

MAX_MODEL_CALLS = 15
CALL_LIMIT = "model_call_limit"


class CallLimitError(Exception):
    """The episode has used its model calls (ends the episode, it is not an error)."""


class Turn:
    """One call of `act`: the questions asked, their usage, and the reply that ends it."""

    def __init__(self, agent: HouseholdLLMAgent, obs: HouseholdObservation) -> None:
        self.agent, self.obs = agent, obs
        self.queries: list[dict[str, Any]] = []
        self.usage: dict[str, int] = {}
        self.last_text = ""
        """The last answer in the paper's text form (the JSON answer turned into text in constrained mode)."""

    def ask(
        self,
        kind: str,
        template: str,
        read: Callable[[str], Reading],
        form: JsonQuestion | None = None,
        **extra: str,
    ) -> Reading:
        """Ask the model one question and read its answer (a failed reading carries the reason).

        `form` (constrained mode) is sent as the JSON schema; its answer is read in its text form.

        Raises:
            CallLimitError: the episode has no model call left.
        """
        memory = self.obs.memory
        asked = int(memory.get("model_queries", 0))
        if asked >= self.agent.max_model_calls:
            raise CallLimitError(f"{asked} model calls used (the limit is {self.agent.max_model_calls})")
        memory["model_queries"] = asked + 1
        fields = {**scene_fields(self.obs), **extra}
        messages = tuple(m for m in self.agent.prompts[template].messages(**fields) if m[1].strip())
        request = ChatRequest(
            messages=messages,
            sampling=self.agent.sampling_for(self.obs.seed),
            schema=form.schema if form else None,
            schema_name=form.name if form else "answer",
        )
        completion = self.agent.engine().complete(request)
        for key, value in completion.usage.items():
            self.usage[key] = self.usage.get(key, 0) + int(value)
        result = completion.result
        text = form.text_of(result.text, result.finish_reason) if form else Reading(result.text)
        self.last_text = text.value or ""
        reading = read(text.value) if text.value is not None else text
        self.queries.append(
            {
                "kind": kind,
                "step": self.obs.step,
                "answer": result.text,
                **({"as_text": text.value} if form else {}),  # what the paper's rule read (constrained mode)
                "read": reading.value,
                "error": reading.reason,
                "finish_reason": result.finish_reason,
                "prompt_tokens": result.prompt_tokens,
                "completion_tokens": result.completion_tokens,
                "cache_hit": bool(completion.usage.get("cache_hits", 0)),
            }
        )
        return reading

    def reply(self, action: str, **info: Any) -> AgentReply:
        return AgentReply(action, dict(self.usage), dict(info), tuple(self.queries))

    def parse_failure(self, kind: str, reason: str) -> AgentReply:
        return AgentReply("", dict(self.usage), {}, tuple(self.queries), parse_error=f"{kind} answer: {reason}")

    def end(self, reason: str, why: str) -> AgentReply:
        return AgentReply("", dict(self.usage), {"end_reason": why}, tuple(self.queries), end=reason)


class HouseholdLLMAgent(SessionAgent):
    """Base of the household language-model planners (see the module docstring).

    Args:
        prompt_dir: A folder with your own copies of the templates (`household-*.system.txt` / `.user.txt`).
        max_tokens: Answer length limit (default 160: a short reasoning and the action).
        max_model_calls: Questions per episode (default 15, the paper's limit).
        constrain: Send each question's JSON schema (`household_json`); default False: free text, as in the paper.
        reasoning_chars: Constrained mode: most characters of the reasoning (default 200; 0: no reasoning).
        **kwargs: Every option of the session (`heedful.llm.session.LLMSession`: model, base_url, gguf, ...).
    """

    templates: tuple[str, ...] = ()

    def __init__(
        self,
        *,
        prompt_dir: str | None = None,
        max_tokens: int = 160,
        max_model_calls: int = MAX_MODEL_CALLS,
        constrain: bool = False,
        reasoning_chars: int = REASONING_CHARS,
        **kwargs: Any,
    ) -> None:
        check_llm_kwargs(self.name, kwargs, own=("max_model_calls", "reasoning_chars"))
        if not isinstance(max_model_calls, int) or isinstance(max_model_calls, bool) or max_model_calls < 1:
            raise ConfigError(f"max_model_calls must be a positive integer, got {max_model_calls!r}")
        if not isinstance(reasoning_chars, int) or isinstance(reasoning_chars, bool) or reasoning_chars < 0:
            raise ConfigError(f"reasoning_chars must be a non-negative integer, got {reasoning_chars!r}")
        super().__init__(max_tokens=max_tokens, constrain=constrain, **kwargs)
        self.max_model_calls = max_model_calls
        self.reasoning_chars = reasoning_chars
        self.prompts: dict[str, PromptTemplate] = {name: load_prompt(name, prompt_dir) for name in self.templates}
        self.prompt = self.prompts[self.templates[0]]

    def turn(self, obs: HouseholdObservation) -> Turn:
        return Turn(self, obs)

    def choice_form(self, choices: Sequence[str]) -> JsonQuestion | None:
        """The JSON form of an action or evidence question (None in free-text mode)."""
        return choice_question(choices, self.reasoning_chars) if self.constrain else None

    def describe(self) -> dict[str, Any]:
        info = self.describe_with({"name": self.prompt.name, "sha256": self.prompt.sha256})
        info["prompts"] = {name: template.sha256 for name, template in self.prompts.items()}
        info["max_model_calls"] = self.max_model_calls
        if self.constrain:
            info["reasoning_chars"] = self.reasoning_chars
        return info
