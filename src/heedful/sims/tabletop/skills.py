"""Scripted skills: pick, place (at a point, on an object, in a bowl, relative to an anchor), push, carry,
rotate and go home.

Each skill is a generator that yields the low-level actions a policy would send and finally returns
(success, reason). `execute` drives one with any step function (the simulation's own `step`, or a
Gymnasium environment's), so the same code serves as the expert for demonstrations and, through
`Skills`, as the high-level action API of planner agents. Unknown names raise ConfigError; physical
failures (nothing held, object dropped, target missed) are reported in the result, never raised.
"""

from __future__ import annotations

import math
from collections.abc import Generator, Sequence

import numpy as np
from numpy.typing import NDArray

from heedful.errors import ConfigError
from heedful.sims.tabletop.config import HOME_POS, HOME_YAW
from heedful.sims.tabletop.geometry import (
    bottom_of,
    check_graspable,
    footprint_at,
    grasp_height,
    grasp_width,
    grasp_yaw,
    relation_vector,
    spec_of,
    top_of,
    travel_height,
    xy_of,
)
from heedful.sims.tabletop.motion import (
    CLOSED,
    OPEN,
    SkillGen,
    SkillResult,
    StepFn,
    actuate_gripper,
    execute,
    go_above,
    grip_for_width,
    move_to,
    nearest_equivalent_yaw,
    tool_yaw,
    wait,
)
from heedful.sims.tabletop.push import push
from heedful.sims.tabletop.sim import TabletopSim
from heedful.sims.tabletop.spec import footprint_gap

Array = NDArray[np.float64]

__all__ = [
    "SkillGen",
    "SkillResult",
    "StepFn",
    "carry",
    "execute",
    "go_home",
    "pick",
    "place_at",
    "place_in",
    "place_on",
    "place_relative",
    "push",
    "rotate_to",
]

LIFT = 0.10  # meters a pick raises the object's grasp point
MIN_LIFT = 0.03  # a pick succeeds when the object rose at least this much
GRASP_MARGIN = 0.03  # extra finger opening beyond the object's width before a grasp


def pick(sim: TabletopSim, name: str) -> SkillGen:
    """Grasp `name` from above and lift it by LIFT."""
    why = check_graspable(sim, name)
    if why:
        return False, why
    held = sim.held_object()
    if held is not None:
        return False, f"already holding {held!r}"
    obj = spec_of(sim, name)
    start_z = float(sim.object_pose(name)[2])
    yaw = grasp_yaw(sim, name, _round_object_yaw(sim, name))
    xy = xy_of(sim, name)
    pregrasp = grip_for_width(grasp_width(obj) + GRASP_MARGIN)
    if not (yield from go_above(sim, xy, travel_height(sim), yaw, pregrasp)):
        return False, "could not reach the point above the object"
    xy = xy_of(sim, name)
    z = grasp_height(sim, name)
    if not (yield from move_to(sim, (xy[0], xy[1], z), yaw, pregrasp, speed=0.3, tol=0.004)):
        return False, "could not descend to the grasp height"
    yield from actuate_gripper(sim, CLOSED, steps=10, hold_yaw=yaw)
    yield from move_to(sim, (xy[0], xy[1], z + LIFT), yaw, CLOSED, speed=0.3, tol=0.01)
    yield from wait(sim, 3, CLOSED)
    if sim.held_object() != name:
        return False, f"{name!r} is not between the fingers after closing"
    lift = float(sim.object_pose(name)[2]) - start_z
    if lift < MIN_LIFT:
        return False, f"{name!r} rose only {lift:.3f} m"
    return True, f"lifted {name!r} by {lift:.3f} m"


def _round_object_yaw(sim: TabletopSim, name: str) -> float:
    """Reference yaw for a grasp, near the home yaw so the wrist camera stays upright.

    For round objects: close across the line to the nearest neighbour, so the open fingers miss it.
    """
    yaw = HOME_YAW
    if spec_of(sim, name).shape not in ("cylinder", "sphere"):
        return yaw
    here = xy_of(sim, name)
    others = [xy_of(sim, n) - here for n in sim.free_objects if n != name]
    if not others:
        return yaw
    nearest = min(others, key=lambda v: float(np.linalg.norm(v)))
    return nearest_equivalent_yaw(math.atan2(nearest[1], nearest[0]) + math.pi / 2, yaw)


def _release_at(
    sim: TabletopSim, held: str, xy: Array, support_top: float, yaw_deg: float | None, gap: float
) -> Generator[Array, None, bool]:
    """Carry `held` over `xy`, lower its bottom to `support_top + gap`, open, back off and let it settle."""
    hang = float(sim.tcp_pos()[2]) - bottom_of(sim, held)
    z_travel = travel_height(sim, hanging=hang, exclude=(held,))
    here = sim.tcp_pos()
    yaw = tool_yaw(sim)
    if yaw_deg is not None:
        yaw = yaw + _object_yaw_error(sim, held, math.radians(yaw_deg))
    if not (yield from go_above(sim, here[:2], z_travel, yaw, CLOSED)):
        return False
    target = np.asarray(xy, dtype=np.float64)
    if not (yield from _align(sim, held, target, z_travel, yaw, speed=0.6)):
        return False
    z_release = support_top + gap + hang
    if not (yield from _align(sim, held, target, z_release, yaw, speed=0.25)):
        return False
    goal = sim.tcp_pos()
    yield from actuate_gripper(sim, OPEN, steps=8, hold_yaw=yaw)
    yield from move_to(sim, (goal[0], goal[1], z_release + 0.08), yaw, OPEN, speed=0.3, tol=0.01)
    for _ in range(20):
        if sim.object_speed(held) < 0.02:
            break
        yield from wait(sim, 1, OPEN)
    return True


def _align(sim: TabletopSim, held: str, xy: Array, z: float, yaw: float, speed: float) -> Generator[Array, None, bool]:
    """Move so that the held object's center is over `xy` with the tool at height `z`.

    The object's offset in the grasp is measured again after each move (it can swing or slip a little).
    """
    for _ in range(3):
        goal = xy + sim.tcp_pos()[:2] - xy_of(sim, held)
        if not (yield from move_to(sim, (goal[0], goal[1], z), yaw, CLOSED, speed=speed, tol=0.004)):
            return False
        if float(np.linalg.norm(xy_of(sim, held) - xy)) < 0.004:
            return True
    return True


def _object_yaw_error(sim: TabletopSim, name: str, target: float) -> float:
    """Signed rotation that brings object `name` to yaw `target`, modulo its symmetry."""
    shape = spec_of(sim, name).shape
    period = math.pi / 2 if shape == "cube" else math.pi
    if shape in ("cylinder", "sphere"):
        return 0.0
    err = (target - sim.object_yaw(name)) % period
    return err - period if err > period / 2 else err


def _begin_place(sim: TabletopSim) -> tuple[str | None, str]:
    held = sim.held_object()
    return (held, "") if held is not None else (None, "nothing is held")


def place_at(sim: TabletopSim, x: float, y: float, yaw_deg: float | None = None, tol: float = 0.02) -> SkillGen:
    """Put the held object down on the table with its center at (x, y) (and its yaw at `yaw_deg`)."""
    held, why = _begin_place(sim)
    if held is None:
        return False, why
    target = np.array([x, y])
    blocker = _occupant(sim, held, target)
    if blocker is not None:
        return False, f"the target point is occupied by {blocker!r}"
    # Balls roll when dropped: lower them almost onto the table.
    gap = 0.002 if spec_of(sim, held).shape == "sphere" else 0.006
    if not (yield from _release_at(sim, held, target, 0.0, yaw_deg, gap=gap)):
        return False, "could not reach the release pose"
    return _check_on_table(sim, held, target, tol, yaw_deg)


def _check_on_table(sim: TabletopSim, held: str, target: Array, tol: float, yaw_deg: float | None) -> tuple[bool, str]:
    err = float(np.linalg.norm(xy_of(sim, held) - target))
    if sim.held_object() == held:
        return False, f"{held!r} is still in the gripper"
    if bottom_of(sim, held) > 0.01:
        return False, f"{held!r} is not resting on the table"
    if err > tol:
        return False, f"{held!r} landed {err:.3f} m from the target (tolerance {tol} m)"
    if yaw_deg is not None:
        yaw_err = abs(math.degrees(_object_yaw_error(sim, held, math.radians(yaw_deg))))
        if yaw_err > 10.0:
            return False, f"{held!r} lies {yaw_err:.1f} deg off the requested yaw"
    return True, f"placed {held!r} {err:.3f} m from the target"


def _occupant(sim: TabletopSim, held: str, target: Array) -> str | None:
    """A free object (other than `held`) whose footprint would overlap the held object's at `target`."""
    mine = footprint_at(sim, held).model_copy(update={"x": float(target[0]), "y": float(target[1])})
    for name in sim.free_objects:
        if name != held and footprint_gap(mine, footprint_at(sim, name)) < 0.005:
            return name
    return None


def place_on(sim: TabletopSim, target: str) -> SkillGen:
    """Stack the held object on top of `target` (a cube, block or cylinder)."""
    base = spec_of(sim, target)
    held, why = _begin_place(sim)
    if held is None:
        return False, why
    if base.shape not in ("cube", "block", "cylinder"):
        return False, f"a {base.shape} has no flat top to stack on"
    if held == target:
        return False, "cannot stack an object on itself"
    top = top_of(sim, target)
    if not (yield from _release_at(sim, held, xy_of(sim, target), top, None, gap=0.006)):
        return False, "could not reach the release pose"
    err = float(np.linalg.norm(xy_of(sim, held) - xy_of(sim, target)))
    if sim.held_object() == held:
        return False, f"{held!r} is still in the gripper"
    if err > 0.03 or bottom_of(sim, held) < top_of(sim, target) - 0.01:
        return False, f"{held!r} is not on {target!r} (xy offset {err:.3f} m)"
    return True, f"stacked {held!r} on {target!r} (xy offset {err:.3f} m)"


def place_in(sim: TabletopSim, bowl: str) -> SkillGen:
    """Drop the held object into `bowl` from just above its rim."""
    spec = spec_of(sim, bowl)
    held, why = _begin_place(sim)
    if held is None:
        return False, why
    if spec.shape != "bowl":
        return False, f"{bowl!r} is a {spec.shape}, not a bowl"
    rim = top_of(sim, bowl)
    if not (yield from _release_at(sim, held, xy_of(sim, bowl), rim, None, gap=0.008)):
        return False, "could not reach the release pose"
    err = float(np.linalg.norm(xy_of(sim, held) - xy_of(sim, bowl)))
    if sim.held_object() == held:
        return False, f"{held!r} is still in the gripper"
    if err > 0.04 or bottom_of(sim, held) > top_of(sim, bowl):
        return False, f"{held!r} is not in {bowl!r} (xy offset {err:.3f} m)"
    return True, f"put {held!r} in {bowl!r} (xy offset {err:.3f} m)"


def place_relative(sim: TabletopSim, anchor: str, relation: str, distance: float = 0.10) -> SkillGen:
    """Put the held object down `distance` meters from `anchor` in the direction of `relation`.

    `relation` is one of left_of, right_of, behind (farther from the robot), in_front_of.
    """
    vec = relation_vector(relation)
    target = xy_of(sim, anchor) + vec * distance
    held = sim.held_object()
    ok, reason = yield from place_at(sim, float(target[0]), float(target[1]))
    if not ok or held is None:
        return ok, reason
    rel = xy_of(sim, held) - xy_of(sim, anchor)
    norm = max(1e-9, float(np.linalg.norm(rel)))
    angle = math.degrees(math.acos(max(-1.0, min(1.0, float(rel @ vec) / norm))))
    if angle > 45.0 or norm > distance + 0.03:
        return False, f"{held!r} is {angle:.0f} deg off the {relation} direction of {anchor!r}"
    return True, f"{reason}; {angle:.0f} deg from the {relation} direction of {anchor!r}"


def carry(sim: TabletopSim, waypoints: Sequence[Sequence[float]], require_held: bool = True) -> SkillGen:
    """Move the tool through waypoints (x, y) or (x, y, z); (x, y) points use the clearing travel height."""
    held = sim.held_object()
    if require_held and held is None:
        return False, "nothing is held"
    grip = CLOSED if held is not None else sim.gripper_command
    hang = float(sim.tcp_pos()[2]) - bottom_of(sim, held) if held is not None else 0.0
    yaw = tool_yaw(sim)
    for i, wp in enumerate(waypoints):
        if len(wp) not in (2, 3):
            raise ConfigError(f"waypoint {i} must be (x, y) or (x, y, z), got {tuple(wp)}")
        z = float(wp[2]) if len(wp) == 3 else travel_height(sim, hanging=hang, exclude=(held,) if held else ())
        if not (yield from move_to(sim, (float(wp[0]), float(wp[1]), z), yaw, grip, tol=0.01)):
            return False, f"could not reach waypoint {i}"
        if held is not None and sim.held_object() != held:
            return False, f"dropped {held!r} on the way to waypoint {i}"
    return True, f"passed {len(waypoints)} waypoints" + (f" holding {held!r}" if held else "")


def rotate_to(sim: TabletopSim, yaw_deg: float) -> SkillGen:
    """Turn the held object (or the bare gripper's closing axis) to `yaw_deg` in place."""
    held = sim.held_object()
    target = math.radians(yaw_deg)
    here = sim.tcp_pos()
    grip = CLOSED if held is not None else sim.gripper_command
    if held is not None:
        yaw = tool_yaw(sim) + _object_yaw_error(sim, held, target)
    else:
        yaw = nearest_equivalent_yaw(target, tool_yaw(sim))
    yield from move_to(sim, here, yaw, grip, tol=0.01, max_steps=60)
    if held is not None:
        if sim.held_object() != held:
            return False, f"dropped {held!r} while turning"
        err = abs(math.degrees(_object_yaw_error(sim, held, target)))
        if err > 5.0:
            return False, f"{held!r} is {err:.1f} deg from the requested yaw"
        return True, f"turned {held!r} to {yaw_deg:.0f} deg (error {err:.1f} deg)"
    err = abs(math.degrees(tool_yaw(sim) - yaw))
    return (err <= 3.0), f"gripper yaw error {err:.1f} deg"


def go_home(sim: TabletopSim, open_gripper: bool = True) -> SkillGen:
    """Rise, then return to the home pose (opening the gripper by default)."""
    grip = OPEN if open_gripper else sim.gripper_command
    here = sim.tcp_pos()
    home = np.array(HOME_POS)
    yaw = nearest_equivalent_yaw(HOME_YAW, tool_yaw(sim), period=2 * math.pi)
    if here[2] < home[2] - 0.01:
        yield from move_to(sim, (here[0], here[1], home[2]), tool_yaw(sim), grip, tol=0.01)
    yield from move_to(sim, home, yaw, grip, tol=0.005)
    err = float(np.linalg.norm(sim.tcp_pos() - home))
    return (err <= 0.01), f"home error {err:.3f} m"
