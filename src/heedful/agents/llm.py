"""Language-model agents: a shared `LLMSession` (heedful.llm.session) plus one small prompt class per suite.

`SessionAgent` holds the session and declares, for the runner, what the session decides: concurrency, the
budget, the arguments a resume may change, whether images can be read, how to close. A suite's agent adds its
prompt and how it turns an observation into a request (composition: no agent inherits another suite's prompt).

`llm` (this module) answers decisions episodes. The prompt is built from template files
(`heedful/agents/prompts/decisions.*.txt`). With `constrain=True` the episode's JSON schema is sent as
`response_format`; with `constrain=False` the format is asked for in the prompt only, so the Parse Success Rate
measures the model. In the decisions visual condition the state's image goes with the user message as an image
content part (for vision-language models behind an OpenAI-compatible server).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from heedful.agents.base import AgentReply
from heedful.errors import ConfigError
from heedful.extras import needs
from heedful.llm.engine import ChatEngine
from heedful.llm.prompts import load_prompt
from heedful.llm.request import ChatRequest, Sampling
from heedful.llm.session import SESSION_ARGS, TEXT_ONLY, LLMSession, check_session_kwargs
from heedful.llm.structured import decision_schema
from heedful.records import PROMPT, prompt_reference
from heedful.requirements import Requirement

__all__ = ["SESSION_ARGS", "TEXT_ONLY", "LLMDecisionAgent", "SessionAgent", "check_llm_kwargs"]


class SessionAgent:
    """Base of the language-model agents: owns `session` and declares what it decides (see the module docstring)."""

    name = "session"

    @staticmethod
    def requirements(agent_args: Mapping[str, Any]) -> tuple[Requirement, ...]:
        """openai (the client), and xllamacpp when no --base-url names an external server (the embedded one)."""
        return needs("openai") if agent_args.get("base_url") else needs("openai", "xllamacpp")

    session_args = SESSION_ARGS

    def __init__(self, **session: Any) -> None:
        self.session = LLMSession(**session)

    @classmethod
    def check_kwargs(cls, name: str, kwargs: dict[str, Any]) -> None:
        """The `**kwargs` an agent passes on to its session: names and values checked without building it."""
        check_llm_kwargs(name, kwargs)

    @property
    def concurrency(self) -> int:
        return self.session.concurrency

    @property
    def has_budget(self) -> bool:
        """Whether a budget limits the run (the runner then keeps it in one process)."""
        return self.session.has_budget

    @property
    def constrain(self) -> bool:
        return self.session.constrain

    @property
    def sampling(self) -> Sampling:
        return self.session.sampling

    def charge_previous_usage(self, totals: Mapping[str, int]) -> None:
        """Count the usage of the run's earlier sessions against the budget."""
        self.session.charge_previous_usage(totals)

    @staticmethod
    def cannot_read(kind: str, agent_args: Mapping[str, Any]) -> str | None:
        """Why the agent cannot read `kind` ("image") with these arguments, or None (see `api.check_agent_inputs`)."""
        return LLMSession.cannot_read(kind, agent_args)

    def engine(self) -> ChatEngine:
        return self.session.engine()

    def sampling_for(self, episode_seed: int) -> Sampling:
        return self.session.sampling_for(episode_seed)

    def ask(self, request: ChatRequest) -> AgentReply:
        """One model answer as a reply (finish reason and token counts in its info). Transport failures raise
        AgentInterfaceError / AgentTimeoutError subclasses."""
        completion = self.session.complete(request)
        result = completion.result
        info: dict[str, Any] = {
            "finish_reason": result.finish_reason,
            "response_tokens": {"prompt": result.prompt_tokens, "completion": result.completion_tokens},
        }
        server = self.session.answered_by(completion)
        if server is not None:  # an external server or a pool's: the record names the server that answered
            info["server"] = server
        return AgentReply(text=result.text, usage=dict(completion.usage), info=info)

    def describe_with(self, prompt: dict[str, Any]) -> dict[str, Any]:
        """The manifest entry: the agent's name, the session, the agent's prompt identity, the session's run
        settings (cache, budget, prices). Never the API key."""
        return {"name": self.name, **self.session.describe(), "prompt": prompt, **self.session.describe_run()}

    def server_counts(self) -> dict[str, dict[str, Any]]:
        """A server pool's per-server answered / failed / out-of-rotation counts, for the manifest."""
        return self.session.server_counts()

    def close(self) -> None:
        """Stop the embedded server (if any) and close the client and the cache. The agent can be reused."""
        self.session.close()


class LLMDecisionAgent(SessionAgent):
    """A language model deciding one-shot decision episodes. Thread-safe; see the module docstring.

    Args:
        prompt_dir: A folder with your own `decisions.system.txt` and `decisions.user.txt`.
        **session: The options of `heedful.llm.session.LLMSession` (model, base_url, gguf, temperature, top_p,
            max_tokens, seed, concurrency, timeout, retries, constrain, cache, budget, threads, parallel).
    """

    name = "llm"

    def __init__(self, *, prompt_dir: str | None = None, **session: Any) -> None:
        check_llm_kwargs(self.name, session)
        super().__init__(**session)
        self.prompt = load_prompt("decisions", prompt_dir)

    def request_for(self, observation: Any) -> ChatRequest:
        """The chat request for a decisions observation."""
        messages = self.prompt.messages(
            state_text=observation.state_text,
            instruction=observation.instruction,
            answer_format=observation.answer_format,
        )
        sampling = self.sampling_for(observation.seed)
        schema = decision_schema(observation.decision_type, observation.candidate_ids) if self.constrain else None
        image = observation.image_png
        if image is not None and self.session.gguf is not None:
            raise ConfigError(f"{self.session.gguf.name}: {TEXT_ONLY}")  # never a silent text-only answer
        images = () if image is None else (image,)
        return ChatRequest(messages=messages, sampling=sampling, schema=schema, schema_name="decision", images=images)

    def decide(self, observation: Any) -> AgentReply:
        """Ask the model once; the reply's info references the exact prompt (`heedful show` prints it).
        Transport failures raise AgentInterfaceError / AgentTimeoutError subclasses."""
        request = self.request_for(observation)
        reply = self.ask(request)
        reference = prompt_reference(request.messages, request.images)
        return replace(reply, info={**reply.info, PROMPT: reference})

    def describe(self) -> dict[str, Any]:
        """What the manifest stores: model identity, sampling, mode, prompt hash, prices. Never the API key."""
        return self.describe_with({"name": self.prompt.name, "sha256": self.prompt.sha256})


def check_llm_kwargs(agent: str, kwargs: Mapping[str, Any], own: Sequence[str] = ()) -> None:
    """Every key of `kwargs` must be an option of the session or one of the agent's `own`.

    Raises:
        ConfigError: naming the unknown argument, the nearest known one and the whole list.
    """
    check_session_kwargs(agent, kwargs, own=("prompt_dir", *own))
