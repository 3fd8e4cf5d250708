"""The route stage of scene 3: where did the carried bar cross the barrier, and over which bar?

The barrier is the row of bars between the bar's start and the labels; its line is their mean y. A
crossing is where the carried object's center passes that line while grasped (first close to the next
open). A crossing is *over* a barrier bar only when it lies within that bar's half-length plus
`BAR_MARGIN` along the bar's long axis; elsewhere (in a gap between bars, or beyond the barrier's end)
it is over no bar.

Intent, by the route's mode (`Grounded.route_mode`):
- via ("pass over the red bar"): every crossing is over an allowed bar, and the object's center never
  enters a forbidden bar's footprint;
- avoid ("avoid passing over the red bar"): no crossing is over a forbidden bar and the center never
  enters one's footprint; passing over another bar, through a gap or around the end all qualify.
At least one crossing is needed. Execution adds: at each crossing the object is lifted (>= 0.01 m above
its grasp height and, over a bar, its bottom above that bar's top), and the path keeps `CLEARANCE`
from every forbidden bar's footprint.

Worked examples (barrier bars 0.15 m long at x = -0.18, 0, 0.18; gaps 0.03 m wide; the red bar's
outer end at x = -0.255, so crossings up to x = -0.265 count as over it):
- "pass over the red bar", crossing at x = -0.27 (around the outer end): over no bar -> intent False;
- "avoid passing over the red bar", the same path: over no bar and outside the red bar's footprint ->
  intent True; only 0.015 m from that footprint (< 0.02 m) -> execution False; around at x = -0.30 ->
  execution True;
- "avoid passing over the red bar", crossing at x = 0.09 (the gap between green and yellow): intent and
  execution True; "pass over the green bar" with that path: intent False.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from heedful.suites.tabletop.model import Grounded
from heedful.suites.tabletop.stages import StageVerdict, Track

CLEARANCE = 0.02  # execution keeps the path this far from forbidden bars
BAR_MARGIN = 0.01  # a crossing this far beyond a bar's end still counts as over it


def _local(tr: Track, bar: str, row: int, xy: NDArray[np.float64]) -> tuple[float, float]:
    v = xy - tr.xy(bar, row)
    yaw = tr.yaw(bar, row)
    return (
        float(v[0] * math.cos(yaw) + v[1] * math.sin(yaw)),
        float(-v[0] * math.sin(yaw) + v[1] * math.cos(yaw)),
    )


def rect_distance(tr: Track, bar: str, row: int, xy: NDArray[np.float64]) -> float:
    """Distance from a point to a bar's footprint (0 inside)."""
    lx, ly = _local(tr, bar, row, xy)
    hx, hy = tr.layout.obj(bar).params[:2]
    return float(math.hypot(max(abs(lx) - hx, 0.0), max(abs(ly) - hy, 0.0)))


def crossings(tr: Track, g: Grounded, start: int, end: int) -> list[tuple[int, float, float]]:
    """(row, x, y) where the object's center passes the barrier line between rows start and end."""
    line = float(np.mean([tr.xy(b, start)[1] for b in g.barrier]))
    track = tr.traj.object_track(g.source)[start : end + 1, :2]
    side = np.where(track[:, 1] >= line, 1, -1)
    out = []
    for i in np.flatnonzero(side[:-1] != side[1:]):
        y0, y1 = float(track[i, 1]), float(track[i + 1, 1])
        t = (line - y0) / (y1 - y0)
        out.append((start + int(i) + 1, float(track[i, 0] + t * (track[i + 1, 0] - track[i, 0])), line))
    return out


def bar_under(tr: Track, g: Grounded, row: int, x: float, y: float) -> str | None:
    """The barrier bar a crossing at (x, y) passes over, or None (a gap, or beyond the barrier's end)."""
    point = np.array([x, y])
    for bar in g.barrier:
        along, _ = _local(tr, bar, row, point)
        if abs(along) <= tr.layout.obj(bar).params[0] + BAR_MARGIN:
            return bar
    return None


def route_stage(tr: Track, g: Grounded, weight: float) -> StageVerdict:
    close = tr.grasps[0] if tr.grasps else None
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
    for row, x, y in found:
        bar = bar_under(tr, g, row, x, y)
        allowed = bar in g.allowed_bars if bar is not None else g.route_mode == "avoid"
        lifted = tr.z(g.source, row) - z0 >= 0.01
        if bar is not None:
            lifted = lifted and tr.bottom(g.source, row) >= tr.top(bar, row)
        intent = intent and allowed
        execution = execution and allowed and lifted
        where = f"over {bar}" if bar is not None else "over no bar"
        notes.append(f"crossed {where} at x={x:.3f} (step {row}, lifted {lifted})")
    detail = "; ".join(notes) + f"; nearest forbidden bar {clearance:.3f} m"
    return StageVerdict("route", weight, intent, intent and execution, detail)
