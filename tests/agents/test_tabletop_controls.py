"""Tabletop validity controls: noop scores nothing; the memorizer is the expert at L0 and replays the
training locations elsewhere; memorizer-object follows the same objects to where they stand now."""

from __future__ import annotations

from typing import Any

import pytest

from heedful.agents.registry import make_agent
from heedful.protocols import ControllerAgent, PlannerAgent
from heedful.suites.base import RolloutContext
from heedful.suites.tabletop.family import swapped
from heedful.suites.tabletop.grounding import ground
from heedful.suites.tabletop.model import Grounded, TabletopTask
from heedful.suites.tabletop.registry import evaluation_tasks, horizon, training_tasks
from heedful.suites.tabletop.replay import nearest_training, similarity
from heedful.suites.tabletop.suite import SUITE

TRAINING = {t.label: t for t in training_tasks()}


def run(task: TabletopTask, agent: Any) -> Any:
    trial = SUITE.episodes_for_run([task], {"trials": 1})[0]
    return SUITE.rollout_episode(trial, agent, RolloutContext(seed=0, index=0, options={}))


def triple(record: Any) -> tuple[float, float, float]:
    return record.scores["intent"], record.scores["execution"], record.scores["complete"]


def test_controls_are_registered_with_the_right_protocols() -> None:
    assert isinstance(make_agent("noop", suite="tabletop"), PlannerAgent)
    assert isinstance(make_agent("memorizer-object", suite="tabletop"), PlannerAgent)
    memorizer = make_agent("memorizer", suite="tabletop")
    assert isinstance(memorizer, ControllerAgent) and memorizer.cameras == ()


def test_nearest_training_phrasing() -> None:
    t = next(iter(TRAINING.values()))
    match, phrase, score = nearest_training(t.paraphrases[0], t.config)
    assert (match.label, phrase, score) == (t.label, t.paraphrases[0], 1.0)
    assert similarity("Pick up the red cube.", "pick up the red cube") == 1.0
    assert 0.0 < similarity("Pick up the red cube.", "Push the red cube left.") < 1.0


def _moved_source_task() -> TabletopTask:
    """The training task "pick up the small red cube" (its training phrasing) with the two cubes swapped."""
    train = next(
        t for t in TRAINING.values() if t.scene == 2 and t.grounded == Grounded(action="pickup", source="red_cube")
    )
    layout = swapped(train.layout, "test/swap_cubes", ("red_cube", "blue_cube"))
    return TabletopTask(
        task="test_moved_source",
        scene=2,
        level="L1",
        config=layout.layout_id,
        base_config=train.config,
        action="pickup",
        instruction=train.paraphrases[0],
        spec=train.spec,
        grounded=ground(train.spec, layout),
        layout=layout,
        horizon=horizon(train.spec),
        training_label=train.label,
    )


@pytest.mark.slow
def test_noop_scores_zero_and_the_memorizer_is_the_expert_at_l0() -> None:
    l0 = [t for t in evaluation_tasks() if t.level == "L0"]
    for task in (l0[0], l0[20], l0[40]):
        assert triple(run(task, make_agent("noop", suite="tabletop"))) == (0.0, 0.0, 0.0)
        record = run(task, make_agent("memorizer", suite="tabletop"))
        assert triple(record) == (1.0, 1.0, 1.0)
        assert record.agent_info["matched"] == task.training_label


@pytest.mark.slow
def test_memorizers_part_where_the_source_moved() -> None:
    task = _moved_source_task()
    assert triple(run(task, make_agent("memorizer-object", suite="tabletop"))) == (1.0, 1.0, 1.0)
    assert run(task, make_agent("memorizer", suite="tabletop")).scores["complete"] == 0.0
