"""Intent as the semantic choice (issue 12), on hand-built trajectories: approaches, headings, drops,
routes around the end and through gaps. Right scores follow from the rules in the stage modules."""

from __future__ import annotations

import numpy as np
import pytest
from tabletop_traj import Script, pick

from heedful.suites.tabletop.registry import training_tasks
from heedful.suites.tabletop.scoring import score_trajectory

TASKS = {t.label: t for t in training_tasks()}


def score(label: str, s: Script) -> tuple[float, float, bool]:
    t = TASKS[label]
    result = score_trajectory(s.build(), t.grounded, t.layout, t.scene)
    return result.intent, result.execution, result.complete


def approx(intent: float, execution: float, complete: bool) -> tuple[object, object, bool]:
    return pytest.approx(intent), pytest.approx(execution), complete


def start(label: str) -> Script:
    return Script(TASKS[label].layout)


def test_fingers_brought_to_the_right_object_without_closing_earn_source_intent_only() -> None:
    assert TASKS["s2_t01_pickup"].grounded.source == "red_cube"
    s = start("s2_t01_pickup").above("red_cube", 0.10).above("red_cube").hold(5).home()
    assert score("s2_t01_pickup", s) == approx(0.8, 0.0, False)
    wrong = start("s2_t01_pickup").above("blue_cube", 0.10).above("blue_cube").hold(5).home()
    assert score("s2_t01_pickup", wrong) == approx(0.0, 0.0, False)
    # Travel at the clearing height over the object is no approach.
    assert score("s2_t01_pickup", start("s2_t01_pickup").above("red_cube", 0.12).home()) == approx(0.0, 0.0, False)


def test_a_pickup_must_hold_the_object_to_the_end() -> None:
    held = pick(start("s2_t01_pickup"), "red_cube").home()
    assert score("s2_t01_pickup", held) == approx(1.0, 1.0, True)
    resting = start("s2_t01_pickup").pos["red_cube"][2]
    slipped = pick(start("s2_t01_pickup"), "red_cube").move(0.0, 0.3, 0.2)
    slipped.held = None  # it falls out of the closed fingers
    slipped.drop("red_cube", resting)
    # Slipped out with the fingers still closed: the choice was right, the pickup not done.
    assert score("s2_t01_pickup", slipped.home()) == approx(1.0, 0.0, False)


def _to_bowl(bowl: str, z: float) -> Script:
    s = pick(start("s2_t12_place_bowl"), "red_cube")
    b = s.pos[bowl]
    return s.move(b[0], b[1], 0.10).move(b[0], b[1], z)


def test_a_drop_halfway_differs_from_a_wrong_target() -> None:
    assert TASKS["s2_t12_place_bowl"].grounded.target == "green_bowl"
    s = pick(start("s2_t12_place_bowl"), "red_cube")
    cube, bowl = s.pos["red_cube"].copy(), s.pos["green_bowl"]
    s.move((cube[0] + bowl[0]) / 2, (cube[1] + bowl[1]) / 2, 0.15).open()
    s.drop("red_cube", cube[2] - 0.10).home()  # fell 8 cm onto the table, halfway there
    # A drop far from the goal is not heading for it (issue 38; was 1.0 / 0.4 under the heading rule).
    assert float(np.linalg.norm(cube[:2] - bowl[:2])) / 2 > 0.10
    assert score("s2_t12_place_bowl", s) == approx(0.4, 0.4, False)
    near = pick(start("s2_t12_place_bowl"), "red_cube")
    near.move(bowl[0] + 0.06, bowl[1], 0.15).open()
    near.drop("red_cube", cube[2] - 0.10).home()  # dropped 6 cm beside the bowl: headed for it, missed
    assert score("s2_t12_place_bowl", near) == approx(1.0, 0.4, False)
    wrong = _to_bowl("yellow_bowl", 0.026).open().home()
    assert score("s2_t12_place_bowl", wrong) == approx(0.4, 0.4, False)
    right = _to_bowl("green_bowl", 0.026).open().home()
    assert score("s2_t12_place_bowl", right) == approx(1.0, 1.0, True)
    carried_home = pick(start("s2_t12_place_bowl"), "red_cube").home()  # heads away from the bowl
    assert score("s2_t12_place_bowl", carried_home) == approx(0.4, 0.4, False)


def _route(label: str, x: float) -> Script:
    s = pick(start(label), "blue_bar", lift=0.11)
    s.move(x, 0.42, 0.12).move(x, 0.58, 0.12).move(-0.17, 0.65, 0.12).turn("blue_bar", 90.0)
    return s.move(-0.17, 0.65, 0.012).open().move(-0.17, 0.65, 0.15).home()


@pytest.mark.parametrize(
    ("x", "via", "avoid"),
    [
        (-0.18, (1.0, 1.0, True), (0.0, 0.0, False)),  # over the red bar
        (-0.30, (0.0, 0.0, False), (1.0, 1.0, True)),  # around the outer end, 4.5 cm clear of it
        (-0.27, (0.0, 0.0, False), (1.0, 0.0, True)),  # around the end but 1.5 cm from it: not executed
        (0.09, (0.0, 0.0, False), (1.0, 1.0, True)),  # the gap between the green and the yellow bar
        (0.0, (0.0, 0.0, False), (1.0, 1.0, True)),  # over the green bar
    ],
)
def test_routes_over_around_and_between_bars(
    x: float, via: tuple[float, float, bool], avoid: tuple[float, float, bool]
) -> None:
    assert (TASKS["s3_t00_route_place"].grounded.route_mode, TASKS["s3_t04_route_place"].grounded.route_mode) == (
        "via",
        "avoid",
    )
    assert TASKS["s3_t04_route_place"].grounded.yaw_deg == 90.0
    assert score("s3_t00_route_place", _route("s3_t00_route_place", x)) == approx(*via)
    assert score("s3_t04_route_place", _route("s3_t04_route_place", x)) == approx(*avoid)
