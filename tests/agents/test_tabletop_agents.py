"""Tabletop baselines: the oracle's program, the blind agent's language-free branch choice."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from heedful.agents.registry import make_agent
from heedful.agents.tabletop import BlindAgent, OracleAgent
from heedful.errors import ConfigError
from heedful.protocols import ControllerAgent, PlannerAgent
from heedful.suites.base import RolloutContext
from heedful.suites.tabletop.model import TabletopTask
from heedful.suites.tabletop.observation import CallOutcome, PlannerObservation, Privileged
from heedful.suites.tabletop.registry import evaluation_tasks
from heedful.suites.tabletop.skillcalls import parse_call
from heedful.suites.tabletop.suite import SUITE

TASKS = {t.task: t for t in evaluation_tasks()}


def observation(task: TabletopTask, seed: int = 0, done: int = 0) -> PlannerObservation:
    history = tuple(CallOutcome("{}", True, "", 1) for _ in range(done))
    return PlannerObservation(
        episode_id=task.task,
        instruction=task.instruction,
        objects=(),
        gripper=(0.0, 0.08, 0.32),
        holding=None,
        history=history,
        steps_used=0,
        steps_left=task.horizon,
        seed=seed,
        privileged=Privileged(task=task, layout=task.layout),
    )


def test_agents_are_registered_and_implement_the_planner_protocol() -> None:
    oracle, blind = make_agent("oracle", suite="tabletop"), make_agent("blind", suite="tabletop")
    assert isinstance(oracle, PlannerAgent) and isinstance(blind, PlannerAgent)
    assert not isinstance(oracle, ControllerAgent)


def test_oracle_answers_its_program_one_call_at_a_time_then_done() -> None:
    task = TASKS["s3_L0_000_route_place"]
    names = tuple(o.name for o in task.layout.objects)
    calls = [parse_call(OracleAgent().act(observation(task, done=i)).text, names) for i in range(5)]
    assert [c.skill for c in calls] == ["pick", "carry", "place_at", "go_home", "done"]
    waypoints = calls[1].args["waypoints"]
    assert all(abs(x - task.layout.obj("red_bar").x) < 1e-9 for x, _ in waypoints)  # crosses over the red bar


def fitted_blind() -> BlindAgent:
    agent = BlindAgent()
    agent.fit(SUITE.training_episodes(list(evaluation_tasks())))
    return agent


def test_blind_draws_training_branches_of_the_configuration_uniformly_without_language() -> None:
    agent = fitted_blind()
    assert {k: len(v) for k, v in agent.branches.items()} == {
        "s1/default": 16,
        "s2/default": 16,
        "s3/default": 8,  # 16 labels, 8 distinct motions
        "s4/bowl": 16,
        "s4/stack": 7,
        "s4/spheres": 4,
    }
    task = TASKS["s4_L0_023_if_pickup"]
    draws = Counter(agent.act(observation(task, seed=s)).info["branch"] for s in range(800))
    assert set(draws) == {0, 1, 2, 3} and min(draws.values()) > 150  # about 200 each
    reworded = task.model_copy(update={"instruction": "Pick up the purple cylinder."})
    same = [
        agent.act(observation(task, seed=s)).text == agent.act(observation(reworded, seed=s)).text for s in range(20)
    ]
    assert all(same)  # the instruction never changes what it does


def test_blind_needs_its_configuration_in_training() -> None:
    with pytest.raises(ConfigError, match="knows no training branch"):
        BlindAgent().act(observation(TASKS["s1_L0_000_pickup"]))


def rollout(task: TabletopTask, agent: Any, seed: int) -> Any:
    trial = SUITE.episodes_for_run([task], {"trials": 1})[0]
    return SUITE.rollout_episode(trial, agent, RolloutContext(seed=seed, index=0, options={}))


def test_blind_completes_exactly_when_it_drew_the_instructed_branch_in_a_small_configuration() -> None:
    agent = fitted_blind()
    spheres = [t for t in evaluation_tasks() if t.config == "s4/spheres" and t.level == "L0"]
    hits = 0
    for task in spheres:
        for seed in range(3):
            record = rollout(task, agent, seed)
            drawn = agent.branches["s4/spheres"][record.agent_info["branch"]]
            if drawn == task.grounded:
                hits += 1
                assert record.scores["intent_full"] == record.scores["complete"] == 1.0
            else:
                assert record.scores["intent_full"] == 0.0
    assert 0 < hits < 12
