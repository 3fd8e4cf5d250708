"""One candidate task per call, for each task type (see `tasks.py` for the building blocks)."""

from __future__ import annotations

import numpy as np

from heedful.sims.household.house import VIEW_REACH, room_viewpoint
from heedful.sims.household.human import plan_walk
from heedful.sims.household.model import ReceptacleSpec
from heedful.suites.household import language as lang
from heedful.suites.household.model import Goal, HumanSpec, Relocation
from heedful.suites.household.reach import words_reach_every_room
from heedful.suites.household.tasks import (
    AMBIGUOUS_PREFERRED_FITS,
    MAX_HUMAN_WALK,
    MIN_HUMAN_WALK,
    Draft,
    HouseContext,
    TaskRejectedError,
    carrying_humans,
    choose_phrase,
    distractors,
    free_spot_on,
    goal_instruction,
    goal_rooms,
    human_in_view,
    near_receptacle,
    random_pose,
    relocation,
    rooms_with_goal,
    sample_goal,
    satisfies,
    spec_of,
    standing_human,
    watch_pose,
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


NOT_CLOSE_M = 2.0
"""An S_obj object moves at least this far from its old receptacle (the grab range): closer would be trivial
(Appendix 0.A.1: P_e and P_t "very close or within the same receptacle")."""


def uniform_goal(fits: tuple[int, ...], rng: np.random.Generator) -> int:
    """The goal room, drawn uniformly among the rooms the words fit once everything the agent knows at the start
    (the plan, its start, where it first sees the human, the words) is fixed: no rule over those can beat chance."""
    return fits[int(rng.integers(len(fits)))]


def sample_s_obj(ctx: HouseContext, ambiguous: bool, rng: np.random.Generator) -> Draft:
    """Situated object: the only object of its category was moved; the human says where, vaguely or not, and
    the agent watched the human carry it away (`watch_pose`). The phrase comes from a receptacle drawn in another
    room; the room the object went to is then drawn uniformly among the rooms the phrase fits (`uniform_goal`;
    the room it left among them when the phrase fits it: then it went to another receptacle there, which the
    paper does not call trivial, Appendix 0.A.1), and every check that could reject the draft (a receptacle and
    a free spot in each fitting room, a trivial goal, an agent pose that sees the walks) is made for every
    fitting room before the draw. An ambiguous draft is dropped when the words alone leave time to look in every
    fitting room and deliver (`reach.words_reach_every_room`, sif-v7): then the task would not need the carry walk."""
    counts: dict[str, int] = {}
    for o in ctx.house.objects:
        counts[o.category] = counts.get(o.category, 0) + 1
    seen = set(ctx.premap.objects)
    eligible = [o for o in ctx.house.objects if counts[o.category] == 1 and o.id in seen]
    if not eligible:
        raise TaskRejectedError("no_unique_object")
    obj = eligible[int(rng.integers(len(eligible)))]
    house = ctx.house
    source = house.receptacle(obj.receptacle)
    home = source.room
    place, fits = _s_obj_phrase(ctx, [r for r in house.receptacles if r.room != home], ambiguous, rng)
    named = place.receptacles[0] if place.kind in ("next_to", "next_to_three") else None
    to_receptacle = {}
    for room in fits:  # a receptacle in each fitting room (of the named kind for a next-to phrase)
        recs = [
            r
            for r in house.receptacles_in(room)
            if (named is None or r.category == named) and r.rect.distance(*source.rect.center) >= NOT_CLOSE_M
        ]
        if not recs:
            raise TaskRejectedError("no_other_receptacle")
        to_receptacle[room] = recs[int(rng.integers(len(recs)))]
    taken = [(o.x, o.y) for o in house.objects]
    spots = {room: free_spot_on(rec, taken, rng) for room, rec in to_receptacle.items()}
    goal = sample_goal(ctx, rng)
    if any(satisfies(ctx, goal, rec.id) for rec in to_receptacle.values()):
        raise TaskRejectedError("trivial_goal")
    humans = carrying_humans(ctx, obj.receptacle, [to_receptacle[room].id for room in fits])
    pose = watch_pose(ctx, humans, rng)
    if len(fits) > 1 and words_reach_every_room(ctx.grid, ctx.house, pose[:2], fits, rooms_with_goal(ctx.house, goal)):
        raise TaskRejectedError("words_reach_every_room")
    # every fitting room's spot stays taken, so that the distractors drawn next do not depend on the goal room
    taken.extend(spots[room] for room in fits)
    room = uniform_goal(fits, rng)
    rec, spot = to_receptacle[room], spots[room]
    target = relocation(obj, rec, spot, place, fits)
    moved = [target, *distractors(ctx, obj.category, taken, rng)]
    moved.sort(key=lambda r: int(r.object_id[1:]))
    return Draft(
        task_type="s_obj",
        ambiguous=len(fits) > 1,
        instruction=goal_instruction(obj.category, goal),
        communication=_shuffled([r.statement for r in moved], rng),
        target_category=obj.category,
        goal=goal,
        candidate_rooms=fits,
        relocations=tuple(moved),
        agent_start=pose,
        human=humans[fits.index(room)],
    )


S_OBJ_PHRASE_TRIES = 4
"""Receptacles drawn for an ambiguous S_obj phrase until one has a phrase that fits four rooms or more (as many
as the S_hum phrase, whose room has no receptacle to name; 4.0 fitting rooms on average in sif-v4)."""


def _s_obj_phrase(
    ctx: HouseContext, receptacles: list[ReceptacleSpec], ambiguous: bool, rng: np.random.Generator
) -> tuple[lang.Place, tuple[int, ...]]:
    """The phrase for where the object went: from a receptacle drawn in another room (`choose_phrase`)."""
    found: tuple[lang.Place, tuple[int, ...]] | None = None
    why = TaskRejectedError("no_phrase")
    for _ in range(S_OBJ_PHRASE_TRIES if ambiguous else 1):
        phrased = receptacles[int(rng.integers(len(receptacles)))]
        try:
            found = choose_phrase(ctx, phrased.room, phrased.category, ambiguous, rng)
        except TaskRejectedError as error:
            why = error
            continue
        if len(found[1]) >= AMBIGUOUS_PREFERRED_FITS[0]:
            break
    if found is None:
        raise why
    return found


HUMAN_POSE_TRIES = 20
"""Agent starts (each with a human in view) tried for one from which the walk to every fitting room is valid."""


def sample_s_hum(ctx: HouseContext, ambiguous: bool, rng: np.random.Generator) -> Draft:
    """Situated human: bring an object to the human, who walks to a room it describes. The phrase comes from a
    room drawn uniformly; the agent's start, the human's start (in the agent's view) and a stopping point in
    every fitting room are drawn so that the walk to each fitting room is valid (it starts outside them and is
    `MIN_HUMAN_WALK`-`MAX_HUMAN_WALK` long); only then is the room the human walks to drawn uniformly among
    them (`uniform_goal`), so that where the rooms lie tells nothing of which one it is."""
    categories = _seen_categories(ctx)
    category = categories[int(rng.integers(len(categories)))]
    rooms = [room.index for room in ctx.house.rooms]
    phrased = rooms[int(rng.integers(len(rooms)))]
    place, fits = choose_phrase(ctx, phrased, None, ambiguous, rng)
    stops = {room: _human_stop(ctx, room, place, rng) for room in fits}
    pose, start = _start_with_valid_walks(ctx, stops, rng)
    destination = uniform_goal(fits, rng)
    taken = [(o.x, o.y) for o in ctx.house.objects]
    moved: list[Relocation] = distractors(ctx, category, taken, rng)
    human = HumanSpec(
        start=start,
        destination=stops[destination],
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


def _human_stop(ctx: HouseContext, room: int, place: lang.Place, rng: np.random.Generator) -> tuple[float, float]:
    """Where the human would stop in `room`: by the named receptacle for a next-to phrase, else a free spot."""
    if place.kind in ("next_to", "next_to_three"):
        rec = next(r for r in ctx.house.receptacles_in(room) if r.category == place.receptacles[0])
        return near_receptacle(ctx, rec)
    return _room_spot(ctx, room, rng)


def _start_with_valid_walks(
    ctx: HouseContext, stops: dict[int, tuple[float, float]], rng: np.random.Generator
) -> tuple[tuple[float, float, int], tuple[float, float]]:
    """An agent start and a human start in its view from which the human could walk to every stop."""
    why = "human_not_in_view"
    for _ in range(HUMAN_POSE_TRIES):
        pose = random_pose(ctx, rng)
        try:
            start = human_in_view(ctx, pose, rng)
        except TaskRejectedError:
            continue
        if ctx.house.room_at(*start) in stops:
            why = "human_starts_in_fitting_room"
            continue
        why = _walk_problem(ctx, start, stops) or ""
        if not why:
            return pose, start
    raise TaskRejectedError(why)


def _walk_problem(ctx: HouseContext, start: tuple[float, float], stops: dict[int, tuple[float, float]]) -> str | None:
    for stop in stops.values():
        walk = plan_walk(ctx.grid, start, stop).length
        if walk < MIN_HUMAN_WALK:
            return "human_walk_too_short"
        if walk > MAX_HUMAN_WALK:
            return "human_walk_too_long"
    return None


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
