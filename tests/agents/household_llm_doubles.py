"""Test doubles for the household language-model agents (no model runs here).

- `ScriptedChatBackend`: a test double of a chat backend; answers each request with `script(user_text)`
  (a text, or a (text, finish_reason) pair) and keeps every request it got.
- `PerfectModel`: a test double of a perfect language model for one episode: it answers every question
  from the ground truth in the paper's formats (the oracle's recorded tool calls, "Enough Evidence", the
  true plan, the true room).
- `JsonModel`: a test double of a model under constrained decoding: the answer of another test double
  written as the JSON of constrained mode ("Reasoning: r Action: a" -> {"reasoning": r, "action": a}, ...).
- `with_backend(agent, backend)`: the agent talking to `backend` (no cache) instead of its server.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from heedful.llm.request import ChatRequest, ChatResult
from heedful.suites.household.model import HouseholdEpisode
from heedful.suites.household.oracle import make_plan
from heedful.suites.household.runtime import TaskEnv


class ScriptedChatBackend:  # test double
    """A chat backend test double answering from a script of the user message."""

    model = "test-double"

    def __init__(self, script: Callable[[str], str | tuple[str, str]]) -> None:
        self.script = script
        self.requests: list[ChatRequest] = []

    def identity(self) -> dict[str, Any]:
        return {"kind": "test-double", "model": self.model}

    def send(self, request: ChatRequest) -> ChatResult:
        self.requests.append(request)
        user = request.messages[-1][1]
        answer = self.script(user)
        text, finish = answer if isinstance(answer, tuple) else (answer, "stop")
        return ChatResult(text, finish, prompt_tokens=len(user) // 4, completion_tokens=12)

    def close(self) -> None:
        pass


def with_backend(agent: Any, backend: ScriptedChatBackend) -> Any:
    agent.session.use_cache = False
    agent.session.use_backend(backend)
    return agent


class PerfectModel:  # test double
    """Answers one episode's questions from the ground truth (a test double of a perfect model)."""

    def __init__(self, episode: HouseholdEpisode) -> None:
        self.episode = episode
        env = TaskEnv.start(episode)
        plan = make_plan(env)
        obj = env.sim.objects[plan.object_id]
        self.object_room = episode.house.room_at(obj.x, obj.y)
        self.goal_room = plan.goal_room

    def __call__(self, user: str) -> str:
        episode, goal = self.episode, self.episode.goal
        if "Please make a high level plan" in user:
            target = episode.target_category
            deliver = {
                "human": f"Give {target} to Human",
                "receptacle": f"Put on the {goal.receptacle}",
                "room": f"Put in the {goal.function}",
            }[goal.kind]
            return f"[Pick up {target}, {deliver}]"
        if "do you have enough evidence" in user:
            return "Reasoning: the words say where the human goes. Action: Enough Evidence"
        search = re.search(r"In which room, is the (.+?) likely to be in\?", user)
        if search:
            room = self.object_room if search.group(1) == episode.target_category else self.goal_room
            return f"Answer: Room {room}"
        done = len(re.findall(r"^Timestep \d+ :", user, flags=re.MULTILINE))
        actions = episode.oracle_actions
        action = actions[done] if done < len(actions) else "Done"
        return f"Reasoning: this is the ground-truth plan. Action: {action}"


class JsonModel:  # test double
    """Another test double's text answers, written as constrained mode's JSON (a test double)."""

    def __init__(self, model: Callable[[str], str]) -> None:
        self.model = model

    def __call__(self, user: str) -> str:
        text = self.model(user)
        if text.startswith("["):
            return json.dumps({"plan": [step.strip() for step in text.strip("[]").split(",")]})
        if text.startswith("Answer: "):
            return json.dumps({"answer": text.removeprefix("Answer: ")})
        reasoning, _, action = text.partition("Action: ")
        return json.dumps({"reasoning": reasoning.removeprefix("Reasoning: ").strip(), "action": action})
