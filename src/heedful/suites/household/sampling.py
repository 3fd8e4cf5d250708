"""One candidate task per call, for each task type (see `tasks.py` for the building blocks)."""

from __future__ import annotations

import numpy as np

from heedful.sims.household.house import VIEW_REACH, room_viewpoint
from heedful.sims.household.human import plan_walk
from heedful.suites.household import language as lang
from heedful.suites.household.model import Goal, HumanSpec, Relocation
from heedful.suites.household.tasks import (
    MAX_HUMAN_WALK,
    MIN_HUMAN_WALK,
    Draft,
    HouseContext,
    TaskRejectedError,
    carrying_human,
    choose_phrase,
    distractors,
    goal_instruction,
    goal_rooms,
    human_in_view,
    near_receptacle,
    random_pose,
    relocate,
    sample_goal,
    satisfies,
    spec_of,
    standing_human,
)


def _seen_categories(ctx: HouseContext, exclude: set[str] | None = None) -> list[str]:
    seen = set(ctx.premap.objects)
    return sorted({o.category for o in ctx.house.objects if o.id in seen} - (exclude or set()))


def _shuffled(statements: list[str], rng: np.random.Generator) -> tuple[str, ...]:
    return tuple(statements[int(k)] for k in rng.permutation(len(statements)))


def sample_pnp(ctx: HouseContext, rng: np.random.Generator) -> Draft:
    """Static pick-and-place: the target object stays where exploration saw it."""
    categories = _seen_categories(ctx)
    category = categories[int(rng.integers(len(categories)))]
    goal = sample_goal(ctx, rng)
    if any(o.category == category and satisfies(ctx, goal, o.receptacle) for o in ctx.house.objects):
        raise TaskRejectedError("trivial_goal")
    taken = [(o.x, o.y) for o in ctx.house.objects]
    moved = distractors(ctx, category, taken, rng)
    return Draft(
        task_type="pnp",
        ambiguous=None,
        instruction=goal_instruction(category, goal),
        communication=_shuffled([r.statement for r in moved], rng),
        target_category=category,
        goal=goal,
        candidate_rooms=goal_rooms(ctx, goal),
        relocations=tuple(moved),
        agent_start=random_pose(ctx, rng),
        human=standing_human(ctx, moved, rng),
    )


def sample_s_obj(ctx: HouseContext, ambiguous: bool, rng: np.random.Generator) -> Draft:
    """Situated object: the only object of its category was moved; the human says where, vaguely or not, and
    the agent watched the human carry it away (`carrying_human`)."""
    counts: dict[str, int] = {}
    for o in ctx.house.objects:
        counts[o.category] = counts.get(o.category, 0) + 1
    seen = set(ctx.premap.objects)
    eligible = [o for o in ctx.house.objects if counts[o.category] == 1 and o.id in seen]
    if not eligible:
        raise TaskRejectedError("no_unique_object")
    obj = eligible[int(rng.integers(len(eligible)))]
    taken = [(o.x, o.y) for o in ctx.house.objects]
    target = relocate(ctx, obj, taken, ambiguous, rng)
    goal = sample_goal(ctx, rng)
    if satisfies(ctx, goal, target.to_receptacle):
        raise TaskRejectedError("trivial_goal")
    if target.to_receptacle == target.from_receptacle:
        raise TaskRejectedError("trivial_move")
    moved = [target, *distractors(ctx, obj.category, taken, rng)]
    moved.sort(key=lambda r: int(r.object_id[1:]))
    human, pose = carrying_human(ctx, target, rng)
    return Draft(
        task_type="s_obj",
        ambiguous=len(target.candidate_rooms) > 1,
        instruction=goal_instruction(obj.category, goal),
        communication=_shuffled([r.statement for r in moved], rng),
        target_category=obj.category,
        goal=goal,
        candidate_rooms=target.candidate_rooms,
        relocations=tuple(moved),
        agent_start=pose,
        human=human,
    )


def sample_s_hum(ctx: HouseContext, ambiguous: bool, rng: np.random.Generator) -> Draft:
    """Situated human: bring an object to the human, who walks to a room it describes."""
    categories = _seen_categories(ctx)
    category = categories[int(rng.integers(len(categories)))]
    rooms = [room.index for room in ctx.house.rooms]
    destination = rooms[int(rng.integers(len(rooms)))]
    place, fits = choose_phrase(ctx, destination, None, ambiguous, rng)
    if place.kind in ("next_to", "next_to_three"):
        rec = next(r for r in ctx.house.receptacles_in(destination) if r.category == place.receptacles[0])
        goal_point = near_receptacle(ctx, rec)
    else:
        goal_point = _room_spot(ctx, destination, rng)
    pose = random_pose(ctx, rng)
    start = human_in_view(ctx, pose, rng)
    if ctx.house.room_at(*start) == destination:
        raise TaskRejectedError("human_starts_in_destination")
    walk = plan_walk(ctx.grid, start, goal_point).length
    if walk < MIN_HUMAN_WALK:
        raise TaskRejectedError("human_walk_too_short")
    if walk > MAX_HUMAN_WALK:
        raise TaskRejectedError("human_walk_too_long")
    taken = [(o.x, o.y) for o in ctx.house.objects]
    moved: list[Relocation] = distractors(ctx, category, taken, rng)
    human = HumanSpec(
        start=start,
        destination=goal_point,
        destination_room=destination,
        place=spec_of(place),
        statement=lang.will_be_statement(place),
    )
    return Draft(
        task_type="s_hum",
        ambiguous=len(fits) > 1,
        instruction=lang.bring_instruction(category),
        communication=_shuffled([r.statement for r in moved], rng),
        target_category=category,
        goal=Goal(kind="human"),
        candidate_rooms=fits,
        relocations=tuple(moved),
        agent_start=pose,
        human=human,
    )


def _room_spot(ctx: HouseContext, room: int, rng: np.random.Generator) -> tuple[float, float]:
    """Where the human stops in a room: a free spot in sight range of the room's viewpoint."""
    grid = ctx.grid
    vx, vy = room_viewpoint(grid, ctx.house, room)
    gx, gy = grid.centres()
    in_sight = (gx - vx) ** 2 + (gy - vy) ** 2 <= VIEW_REACH**2
    rows, cols = np.nonzero(ctx.reachable & (grid.room == room) & (grid.clearance >= 0.45) & in_sight)
    if rows.size == 0:
        raise TaskRejectedError("no_place_to_stand")
    k = int(rng.integers(rows.size))
    x, y = grid.centre(int(rows[k]), int(cols[k]))
    return (round(x, 4), round(y, 4))


def sample_draft(ctx: HouseContext, task_type: str, ambiguous: bool | None, rng: np.random.Generator) -> Draft:
    if task_type == "pnp":
        return sample_pnp(ctx, rng)
    if task_type == "s_obj":
        return sample_s_obj(ctx, bool(ambiguous), rng)
    return sample_s_hum(ctx, bool(ambiguous), rng)
