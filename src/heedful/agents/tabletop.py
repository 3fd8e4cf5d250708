"""Agents for the tabletop suite (RoboFollow protocol). They implement `heedful.protocols`:

- a `PlannerAgent` reads a `PlannerObservation` (instruction, objects, history, available skills with a
  JSON Schema) and answers one skill call as JSON text. A language-model planner plugs in here.
- a `ControllerAgent` is RoboFollow's policy interface (reset, set_instruction, predict -> action chunk).
- `oracle`: executes the task spec with the scripted expert (privileged; must score full marks).
- `planner`: a language model picks each skill call through structured output (`LLMPlannerAgent`).
- `blind`: ignores the instruction. In each scene configuration it executes one of that configuration's
  training branches, drawn per trial from the episode seed: what a policy that reads only the scene does.
  Its branch refers to objects by identity, so in a changed layout it acts on the same objects.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from heedful.agents.base import AgentReply
from heedful.agents.llm import SessionAgent, check_llm_kwargs
from heedful.errors import ConfigError
from heedful.llm.prompts import load_prompt
from heedful.llm.request import ChatRequest
from heedful.seeding import derive_rng
from heedful.suites.tabletop.expert import branch_program, program
from heedful.suites.tabletop.model import Grounded, Layout, TabletopTask, TabletopTrial
from heedful.suites.tabletop.observation import PlannerObservation
from heedful.suites.tabletop.skillcalls import SkillCall

DONE = SkillCall(skill="done")


def planned_reply(calls: list[SkillCall], observation: PlannerObservation, **info: Any) -> AgentReply:
    i = len(observation.history)
    return AgentReply(text=(calls[i] if i < len(calls) else DONE).text(), info=info)


class OracleAgent:
    """Runs the expert program of the grounded task (it never reads the instruction).

    When the task changes during the trial (`--reinstruct`) it re-plans at its first call after the change: it puts
    an object it holds back where the trial started it (unless the new task picks it first), then runs the new task's
    program on the objects where they stand."""

    name = "oracle"
    privileged = True  # reads the grounded task and the layout

    def __init__(self) -> None:
        self._replanned: tuple[tuple[int, int], list[SkillCall]] | None = None

    def act(self, observation: PlannerObservation) -> AgentReply:
        truth = observation.ground_truth()
        task, layout = truth.task, truth.layout
        since = observation.instruction_since
        if not since:
            return planned_reply(program(task.grounded, layout), observation)
        key = (observation.seed, since)
        if self._replanned is None or self._replanned[0] != key:
            self._replanned = key, replan(task.grounded, layout, observation)
        calls = self._replanned[1]
        i = len(observation.history) - since
        return AgentReply(text=(calls[i] if i < len(calls) else DONE).text(), info={"replanned_after": since})

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "reads": "grounded task spec (never the instruction)"}


def replan(g: Grounded, layout: Layout, observation: PlannerObservation) -> list[SkillCall]:
    """The program of `g` from the state the observation shows: a held object first goes back to its start, unless it
    is the one the program picks first."""
    start = {o.name: o for o in layout.objects}
    now = {o.name: (o.x, o.y) for o in observation.objects}
    held = observation.holding
    if held is not None:
        now[held] = (start[held].x, start[held].y)
    live = layout.model_copy(
        update={
            "objects": tuple(o.model_copy(update={"x": now[o.name][0], "y": now[o.name][1]}) for o in layout.objects)
        }
    )
    calls = program(g, live)
    if held is not None and calls and calls[0] == SkillCall(skill="pick", args={"object": held}):
        return calls[1:]  # it already holds what the new task picks first
    back = [] if held is None else [SkillCall(skill="place_at", args={"x": start[held].x, "y": start[held].y})]
    return back + calls


class BlindAgent:
    """Executes a training branch of the episode's scene configuration, chosen without language."""

    name = "blind"
    privileged = True  # reads the scene configuration and the layout

    def __init__(self) -> None:
        self.branches: dict[str, list[Grounded]] = {}

    def fit(self, train_episodes: Sequence[Any]) -> None:
        """Learn each configuration's training branches from the L0 tasks (their grounded specs)."""
        branches: dict[str, list[Grounded]] = {}
        for ep in train_episodes:
            task = ep.task if isinstance(ep, TabletopTrial) else ep
            if not isinstance(task, TabletopTask):
                raise ConfigError(f"the blind agent fits on tabletop tasks, got {type(ep).__name__}")
            if task.level == "L0" and task.grounded not in branches.setdefault(task.config, []):
                branches[task.config].append(task.grounded)
        self.branches = branches

    def act(self, observation: PlannerObservation) -> AgentReply:
        truth = observation.ground_truth()
        task, layout = truth.task, truth.layout
        options = self.branches.get(task.base_config)
        if not options:
            raise ConfigError(
                f"the blind agent knows no training branch of configuration {task.base_config!r}; "
                "run it on a dataset that holds the L0 tasks"
            )
        k = int(derive_rng(observation.seed, "blind-branch").integers(len(options)))
        branch = options[k]
        return planned_reply(branch_program(branch, layout), observation, branch=k, of=len(options))

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "reads": "scene configuration only (a training branch drawn per trial)"}


class LLMPlannerAgent(SessionAgent):
    """`planner`: a language model reads the scene, the instruction and the calls so far, and answers one
    skill call as JSON (constrained by the skill-call JSON Schema unless `constrain=False`).

    It acts only through the skills, so it isolates intent (choosing the right call) from motor execution.
    Options are those of its session (`heedful.llm.session.LLMSession`: model, base_url, gguf, sampling, cache,
    budget, ...); the prompt pair is `tabletop.system.txt` / `tabletop.user.txt` (user field `$observation`),
    from `prompt_dir` if given.
    """

    name = "planner"

    def __init__(self, *, prompt_dir: str | None = None, max_tokens: int = 160, **kwargs: Any) -> None:
        check_llm_kwargs("planner", kwargs)
        super().__init__(max_tokens=max_tokens, **kwargs)
        self.prompt = load_prompt("tabletop", prompt_dir)

    def request_for(self, observation: Any) -> ChatRequest:
        """The chat request for one planning step of a tabletop trial."""
        messages = self.prompt.messages(observation=observation.text)
        sampling = self.sampling_for(observation.seed)
        schema = observation.schema if self.constrain else None
        return ChatRequest(messages=messages, sampling=sampling, schema=schema, schema_name="skill_call")

    def act(self, observation: PlannerObservation) -> AgentReply:
        """Ask the model for the next call (transport failures raise the runner's interface / timeout errors)."""
        return self.ask(self.request_for(observation))

    def describe(self) -> dict[str, Any]:
        """The session and the prompt pair's identity (see `SessionAgent.describe_with`)."""
        return self.describe_with({"name": self.prompt.name, "sha256": self.prompt.sha256})
