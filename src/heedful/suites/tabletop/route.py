"""The route stage of scene 3: over which barrier bar did the carried object pass?

The barrier is the row of bars between the object's start and the labels. A crossing is where the
object's path (its center) passes the barrier's line; the bar crossed is the barrier bar nearest in x
at that moment.
"""

from __future__ import annotations

import math

import numpy as np

from heedful.suites.tabletop.model import Grounded
from heedful.suites.tabletop.stages import StageVerdict, Track

CLEARANCE = 0.02  # execution keeps the path this far from forbidden bars


def _local(tr: Track, bar: str, row: int, xy: np.ndarray) -> tuple[float, float]:
    v = xy - tr.xy(bar, row)
    yaw = tr.yaw(bar, row)
    return v[0] * math.cos(yaw) + v[1] * math.sin(yaw), -v[0] * math.sin(yaw) + v[1] * math.cos(yaw)


def rect_distance(tr: Track, bar: str, row: int, xy: np.ndarray) -> float:
    """Distance from a point to a bar's footprint (0 inside)."""
    lx, ly = _local(tr, bar, row, xy)
    hx, hy = tr.layout.obj(bar).params[:2]
    return math.hypot(max(abs(lx) - hx, 0.0), max(abs(ly) - hy, 0.0))


def crossings(tr: Track, g: Grounded, start: int, end: int) -> list[tuple[int, float]]:
    """(row, x) where the object's center passes the barrier line between rows start and end."""
    line = float(np.mean([tr.xy(b, start)[1] for b in g.barrier]))
    track = tr.traj.object_track(g.source)[start : end + 1, :2]
    side = np.where(track[:, 1] >= line, 1, -1)
    out = []
    for i in np.flatnonzero(side[:-1] != side[1:]):
        y0, y1 = track[i, 1], track[i + 1, 1]
        t = (line - y0) / (y1 - y0)
        out.append((start + int(i) + 1, float(track[i, 0] + t * (track[i + 1, 0] - track[i, 0]))))
    return out


def route_stage(tr: Track, g: Grounded, weight: float) -> StageVerdict:
    close = tr.closes[0] if tr.closes else None
    if close is None or not g.barrier:
        return StageVerdict("route", weight, False, False, "the object was never grasped")
    end = tr.next_event(tr.opens, close) or tr.last
    found = crossings(tr, g, close, end)
    if not found:
        return StageVerdict("route", weight, False, False, "the object never crossed the barrier")
    forbidden = [b for b in g.barrier if b not in g.allowed_bars]
    path = tr.traj.object_track(g.source)[close : end + 1, :2]
    gaps = [rect_distance(tr, b, close + i, xy) for i, xy in enumerate(path) for b in forbidden]
    clearance = min(gaps, default=math.inf)
    z0 = tr.z(g.source, close)
    intent, execution, notes = clearance > 0.0, clearance >= CLEARANCE, []
    for row, x in found:
        bar = min(g.barrier, key=lambda b: abs(tr.xy(b, row)[0] - x))
        over = abs(_local(tr, bar, row, np.array([x, tr.xy(bar, row)[1]]))[0]) <= tr.layout.obj(bar).params[0]
        lifted = tr.z(g.source, row) - z0 >= 0.01 and tr.bottom(g.source, row) >= tr.top(bar, row)
        intent = intent and bar in g.allowed_bars
        execution = execution and bar in g.allowed_bars and over and lifted
        notes.append(f"crossed over {bar} at x={x:.3f} (step {row}, lifted {lifted})")
    detail = "; ".join(notes) + f"; nearest forbidden bar {clearance:.3f} m"
    return StageVerdict("route", weight, intent, intent and execution, detail)
