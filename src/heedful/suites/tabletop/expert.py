"""The scripted expert: a grounded task and its initial layout -> the skill calls that solve it.

Calls are planned from the trial's initial (perturbed) layout; the skills themselves read the live
simulation while they run. The same program drives demonstrations and the `oracle` baseline.
"""

from __future__ import annotations

import numpy as np

from heedful.errors import ConfigError
from heedful.suites.tabletop.grounding import PLACE_DIST, PUSH_DIST, RELATION_VECTORS, relative_target
from heedful.suites.tabletop.model import Grounded, Layout
from heedful.suites.tabletop.skillcalls import SkillCall

BARRIER_MARGIN = 0.08  # waypoints this far before and after the barrier line


def _call(skill: str, **args: object) -> SkillCall:
    return SkillCall(skill=skill, args=dict(args))


def program(g: Grounded, layout: Layout) -> list[SkillCall]:
    """The skill calls that carry out `g` in `layout`.

    Raises:
        ConfigError: the grounded task lacks a field its action needs.
    """
    src = g.source
    home = _call("go_home")
    if g.action == "pickup":
        return [_call("pick", object=src), _call("go_home", open_gripper=False)]
    if g.action == "sequence_pickups":
        first = layout.obj(src)
        return [
            _call("pick", object=src),
            _call("place_at", x=first.x, y=first.y),
            _call("pick", object=_need(g.second, "second")),
            _call("go_home", open_gripper=False),
        ]
    if g.action == "push":
        return [_call("push", object=src, direction=_need(g.direction, "direction"), distance=PUSH_DIST), home]
    target = _need(g.target, "target")
    if g.action == "stack":
        return [_call("pick", object=src), _call("place_on", target=target), home]
    if g.action == "place_bowl":
        return [_call("pick", object=src), _call("place_in", bowl=target), home]
    if g.action == "place_slot":
        slot = layout.obj(target)
        return [_call("pick", object=src), _call("place_at", x=slot.x, y=slot.y), home]
    if g.action == "place_relative":
        point = relative_target(layout, src, target, _need(g.relation, "relation"))
        if point is None:
            raise ConfigError(f"no free point {g.relation} {target} in {layout.layout_id}")
        return [_call("pick", object=src), _call("place_at", x=point[0], y=point[1]), home]
    if g.action == "route_place":
        label = layout.obj(target)
        return [
            _call("pick", object=src),
            _call("carry", waypoints=route_waypoints(g, layout)),
            _call("place_at", x=label.x, y=label.y, yaw_deg=g.yaw_deg),
            home,
        ]
    raise ConfigError(f"the expert has no program for action {g.action!r}")


def branch_program(g: Grounded, layout: Layout) -> list[SkillCall]:
    """The expert program of a (training) branch in `layout`, as the `blind` agent and the chance level
    run it: a relative placement whose usual point is taken goes to that point anyway (the skill then
    reports it occupied), as a policy copying the motion would."""
    try:
        return program(g, layout)
    except ConfigError:
        if g.action != "place_relative" or g.target is None or g.relation is None:
            raise
        anchor = layout.obj(g.target)
        vx, vy = RELATION_VECTORS["right_of" if g.relation == "beside" else g.relation]
        point = {"x": anchor.x + vx * PLACE_DIST, "y": anchor.y + vy * PLACE_DIST}
        return [_call("pick", object=g.source), SkillCall(skill="place_at", args=point), _call("go_home")]


def route_waypoints(g: Grounded, layout: Layout) -> list[list[float]]:
    """Two points straddling the barrier at the allowed bar nearest the label (then nearest the source)."""
    if not g.allowed_bars or g.target is None:
        raise ConfigError("a route needs allowed bars and a target label")
    label, src = layout.obj(g.target), layout.obj(g.source)
    bar = min((layout.obj(b) for b in g.allowed_bars), key=lambda o: (round(abs(o.x - label.x), 3), abs(o.x - src.x)))
    line = float(np.mean([layout.obj(b).y for b in g.barrier]))
    return [[bar.x, line - BARRIER_MARGIN], [bar.x, line + BARRIER_MARGIN]]


def _need(value: str | None, what: str) -> str:
    if value is None:
        raise ConfigError(f"the grounded task has no {what}")
    return value
