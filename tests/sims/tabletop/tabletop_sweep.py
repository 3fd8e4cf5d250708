"""Seeded skill sweeps shared by the fast and the slow skill tests (a helper module, not a test file).

Every case builds a random scene around one target object, runs real skills in real physics and
returns a failure message, or None on success. Scene randomness comes from `derive_rng`, so a case is
the same in every process.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator

import numpy as np

from heedful.seeding import derive_rng
from heedful.sims.tabletop.config import SimConfig
from heedful.sims.tabletop.geometry import relation_vector
from heedful.sims.tabletop.rotations import tilt_of_quat
from heedful.sims.tabletop.scenes import free_point, sample_scene
from heedful.sims.tabletop.sim import TabletopSim
from heedful.sims.tabletop.skillset import Skills
from heedful.sims.tabletop.spec import SceneSpec, footprint_gap
from heedful.world.objects import Size

GRASPABLE = ("cube", "block", "cylinder", "sphere", "bar")
PUSHABLE = ("cube", "block", "cylinder", "sphere", "bar", "bowl")
STACK_BASES = ("cube", "block", "cylinder")
STACKABLE = ("cube", "block", "cylinder", "bar")  # a ball does not stay on a flat top
ROTATABLE = ("cube", "block", "bar")
SIZES: tuple[Size, ...] = ("small", "large")
CONFIG = SimConfig(cameras=())
OPEN = np.array([0, 0, 0, 0, 0, 0, -1.0])

Case = Callable[[int], str | None]


def _sim(scene: SceneSpec) -> tuple[TabletopSim, Skills]:
    sim = TabletopSim(scene, CONFIG)
    return sim, Skills(sim)


def _scene(seed: int, key: str, target: tuple[str, Size], *others: tuple[str, Size]) -> SceneSpec:
    return sample_scene(derive_rng(seed, key), [target, *others])  # type: ignore[list-item]


def _fail(step: str, result: object) -> str:
    return f"{step}: {getattr(result, 'reason', result)}"


def pick_place(shape: str, size: Size) -> Case:
    def case(seed: int) -> str | None:
        scene = _scene(seed, f"pick/{shape}/{size}", (shape, size), ("cube", "small"), ("cylinder", "small"))
        _, sk = _sim(scene)
        me = scene.objects[0]
        if not (r := sk.pick(me.name)).success:
            return _fail("pick", r)
        x, y = free_point(derive_rng(seed, "point", shape, size), scene, me.footprint_radius + 0.015)
        if not (r := sk.place_at(x, y)).success:
            return _fail(f"place_at ({x}, {y})", r)
        return None if (r := sk.go_home()).success else _fail("go_home", r)

    return case


def stack(shape: str, size: Size, base: str) -> Case:
    def case(seed: int) -> str | None:
        base_size: Size = "large" if size == "large" or seed % 2 else "small"
        scene = _scene(seed, f"stack/{shape}/{size}/{base}", (shape, size), (base, base_size), ("sphere", "small"))
        sim, sk = _sim(scene)
        top, bottom = scene.objects[0].name, scene.objects[1].name
        for step, result in (("pick", sk.pick(top)), ("place_on", sk.place_on(bottom)), ("home", sk.go_home())):
            if not result.success:
                return _fail(step, result)
        for _ in range(40):  # two seconds on its own
            sim.step(OPEN)
        a, b = sim.object_pose(top), sim.object_pose(bottom)
        if float(np.linalg.norm(a[:2] - b[:2])) > 0.03 or a[2] < b[2] or tilt_of_quat(a[3:]) > math.radians(10):
            return f"the stack of {top} on {bottom} did not stand"
        return None

    return case


def in_bowl(shape: str, size: Size) -> Case:
    def case(seed: int) -> str | None:
        scene = _scene(seed, f"bowl/{shape}/{size}", (shape, size), ("bowl", "large" if seed % 2 else "small"))
        _, sk = _sim(scene)
        if not (r := sk.pick(scene.objects[0].name)).success:
            return _fail("pick", r)
        return None if (r := sk.place_in(scene.objects[1].name)).success else _fail("place_in", r)

    return case


def relative(shape: str, size: Size) -> Case:
    def case(seed: int) -> str | None:
        scene = _scene(seed, f"rel/{shape}/{size}", (shape, size), ("sphere", "small"), ("cube", "large"))
        me, anchor = scene.objects[0], scene.objects[1]
        options = []
        for rel in ("left_of", "right_of", "behind", "in_front_of"):
            p = np.array([anchor.x, anchor.y]) + relation_vector(rel) * 0.10
            spot = me.model_copy(update={"x": float(p[0]), "y": float(p[1])})
            inside = -0.35 < p[0] < 0.35 and 0.25 < p[1] < 0.75
            if inside and all(footprint_gap(spot, o) > 0.01 for o in scene.objects[1:]):
                options.append(rel)
        if not options:
            return None  # no free spot around the anchor in this scene; nothing to test
        rel = options[seed % len(options)]
        _, sk = _sim(scene)
        if not (r := sk.pick(me.name)).success:
            return _fail("pick", r)
        return None if (r := sk.place_relative(anchor.name, rel)).success else _fail(f"place_relative {rel}", r)

    return case


def push(shape: str, size: Size) -> Case:
    def case(seed: int) -> str | None:
        scene = _scene(seed, f"push/{shape}/{size}", (shape, size), ("cube", "small"))
        me, other = scene.objects
        rng = derive_rng(seed, "push", shape, size)
        for _ in range(100):
            angle, dist = float(rng.uniform(0, 360)), float(rng.uniform(0.04, 0.10))
            d = np.array([math.cos(math.radians(angle)), math.sin(math.radians(angle))])
            path = [np.array([me.x, me.y]) + d * s for s in np.linspace(-me.footprint_radius - 0.07, dist, 12)]
            end = path[-1]
            clear = all(
                float(np.linalg.norm(p - [other.x, other.y])) > other.footprint_radius + me.footprint_radius + 0.02
                for p in path
            )
            if clear and -0.33 < end[0] < 0.33 and 0.27 < end[1] < 0.73:
                break
        _, sk = _sim(scene)
        r = sk.push(me.name, angle, dist)
        return None if r.success else _fail(f"push {angle:.0f} deg {dist:.3f} m", r)

    return case


def carry_rotate(shape: str, size: Size) -> Case:
    def case(seed: int) -> str | None:
        scene = _scene(seed, f"carry/{shape}/{size}", (shape, size), ("bar", "large"))
        _, sk = _sim(scene)
        bar = scene.objects[1]
        if not (r := sk.pick(scene.objects[0].name)).success:
            return _fail("pick", r)
        # Pass over the bar, then around its end.
        ax, ay = bar.x + 0.2 * math.cos(math.radians(bar.yaw_deg)), bar.y + 0.2 * math.sin(math.radians(bar.yaw_deg))
        around = (float(np.clip(ax, -0.35, 0.35)), float(np.clip(ay, 0.2, 0.8)))
        if not (r := sk.carry([(bar.x, bar.y), around])).success:
            return _fail("carry", r)
        yaw = float(derive_rng(seed, "yaw", shape).uniform(-80, 80))
        if not (r := sk.rotate_to(yaw)).success:
            return _fail(f"rotate_to {yaw:.0f}", r)
        return None if (r := sk.go_home(open_gripper=False)).success else _fail("go_home", r)

    return case


def all_cases() -> Iterator[tuple[str, Case]]:
    """Every (skill, shape) combination the skills apply to."""
    for shape in GRASPABLE:
        for size in SIZES:
            yield f"pick_place/{shape}/{size}", pick_place(shape, size)
            yield f"in_bowl/{shape}/{size}", in_bowl(shape, size)
            yield f"relative/{shape}/{size}", relative(shape, size)
            yield f"carry_rotate/{shape}/{size}", carry_rotate(shape, size)
    for shape in STACKABLE:
        for size in SIZES:
            for base in STACK_BASES:
                yield f"stack/{shape}/{size}/on_{base}", stack(shape, size, base)
    for shape in PUSHABLE:
        for size in SIZES:
            yield f"push/{shape}/{size}", push(shape, size)


def run_sweep(seeds: range) -> tuple[int, list[str]]:
    """Run every case for every seed; return (cases run, failure messages)."""
    failures = []
    count = 0
    for name, case in all_cases():
        for seed in seeds:
            count += 1
            message = case(seed)
            if message is not None:
                failures.append(f"{name} seed {seed}: {message}")
    return count, failures
