"""Guard for finding 1 of issue 12: whatever path a stage verdict takes, the scores and details are plain
Python values and the record they go into serializes. Hand-built trajectories (no physics) drive every
training task through success, failure and odd paths (route crossings over every bar, in every gap and
beyond both ends)."""

from __future__ import annotations

import json
from collections.abc import Callable

from tabletop_traj import Script, pick

from heedful.records import Record, Status
from heedful.suites.tabletop.model import TrainingTask
from heedful.suites.tabletop.registry import training_tasks
from heedful.suites.tabletop.scoring import TrialScore, score_trajectory

PLAIN = (bool, int, float, str, type(None))


def plain(value: object) -> bool:
    if isinstance(value, dict):
        return all(isinstance(k, str) and plain(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return all(plain(v) for v in value)
    return type(value) in PLAIN


def _targets(t: TrainingTask) -> list[str]:
    return [n for n in (t.grounded.target, t.grounded.second) if n is not None]


def paths(t: TrainingTask) -> list[Callable[[Script], Script]]:
    """Ways to act on task `t`: nothing, approach only, pick and drop, pick and carry to each target,
    and (scene 3) carry the bar across the barrier line at many x."""
    src = t.grounded.source
    out: list[Callable[[Script], Script]] = [
        lambda s: s.hold(10),
        lambda s: s.above(src).above(src, 0.02).hold(5).home(),
        lambda s: pick(s, src).open().home(),
        lambda s: pick(s, src).home(),
    ]
    for target in _targets(t):
        out.append(lambda s, tg=target: pick(s, src).above(tg, 0.10).above(tg, 0.05).open().home())
        out.append(lambda s, tg=target: pick(s, tg).above(src, 0.10).open().home())
    if t.grounded.barrier:
        for x in (-0.30, -0.27, -0.26, -0.18, -0.09, 0.0, 0.06, 0.09, 0.18, 0.26, 0.30):
            out.append(lambda s, x=x: pick(s, src, lift=0.11).move(x, 0.42, 0.12).move(x, 0.58, 0.12).open().home())
    return out


def record_of(t: TrainingTask, score: TrialScore) -> Record:
    return Record(
        episode_id=t.label,
        index=0,
        status=Status.OK,
        keys={"task": t.label, "scene": f"S{t.scene}", "level": "L0"},
        prediction=score.details(),
        scores=score.scores(),
        correct=score.complete,
    )


def test_every_verdict_path_stores_plain_values() -> None:
    checked = 0
    for t in training_tasks():
        for act in paths(t):
            score = score_trajectory(act(Script(t.layout)).build(), t.grounded, t.layout, t.scene)
            assert type(score.intent) is float and type(score.execution) is float and type(score.complete) is bool
            assert all(type(s.intent) is bool and type(s.execution) is bool for s in score.stages)
            assert plain(score.scores()) and plain(score.details()), t.label
            json.dumps(score.details())
            Record.model_validate_json(record_of(t, score).model_dump_json())
            checked += 1
    assert checked > 75 * 4
