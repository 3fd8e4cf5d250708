"""The simulation core in real MuJoCo physics: resting objects, stacks, actions, bad input, instability, state."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError

from heedful.errors import ConfigError, InvalidActionError, SimulationError
from heedful.sims.tabletop.config import HOME_POS, SimConfig
from heedful.sims.tabletop.rotations import axis_angle_to_mat, mat_to_axis_angle, tilt_of_quat
from heedful.sims.tabletop.sim import TabletopSim
from heedful.sims.tabletop.spec import SIM_SHAPES, ObjectSpec, SceneSpec, resting_z

NO_CAMERAS = SimConfig(cameras=())
ZERO = np.zeros(7)


def sim_of(*objects: ObjectSpec, config: SimConfig = NO_CAMERAS) -> TabletopSim:
    return TabletopSim(SceneSpec(objects=objects), config)


def obj(name: str, shape: str, x: float, y: float, **kw: object) -> ObjectSpec:
    return ObjectSpec(name=name, shape=shape, color="red", x=x, y=y, **kw)  # type: ignore[arg-type]


def physics_bytes(sim: TabletopSim) -> bytes:
    return sim.get_state().physics


def test_every_shape_in_both_sizes_rests_where_the_spec_puts_it() -> None:
    objects = []
    spots = [(x, y) for y in (0.3, 0.45, 0.6, 0.75) for x in (-0.3, -0.1, 0.1, 0.3)]
    kinds = [(shape, size) for shape in SIM_SHAPES for size in ("small", "large")]
    for i, ((shape, size), (x, y)) in enumerate(zip(kinds, spots, strict=False)):
        objects.append(obj(f"{shape}_{size}", shape, x, y, size=size, yaw_deg=15 * i + (90 if shape == "bar" else 0)))
    sim = sim_of(*objects, config=SimConfig(cameras=(), max_objects=16))
    for _ in range(20):  # one second
        sim.step(ZERO)
    scene = sim.scene
    for spec, pose in zip(scene.objects, sim.object_poses(), strict=True):
        assert pose[:2] == pytest.approx([spec.x, spec.y], abs=1e-3), spec.name
        assert pose[2] == pytest.approx(resting_z(scene, spec), abs=2e-3), spec.name
        assert tilt_of_quat(pose[3:]) < math.radians(1), spec.name
        assert sim.object_speed(spec.name) < 1e-3, spec.name


@pytest.mark.parametrize(
    ("base", "top"),
    [("cube", "cube"), ("block", "cube"), ("cylinder", "cylinder"), ("block", "bar"), ("cube", "block")],
)
def test_stacks_of_two_from_the_spec_stand(base: str, top: str) -> None:
    sim = sim_of(obj("base", base, 0.0, 0.5, size="large"), obj("top", top, 0.0, 0.5, on="base"))
    start = sim.object_pose("top")
    for _ in range(60):  # three seconds
        sim.step(ZERO)
    end = sim.object_pose("top")
    assert end[:3] == pytest.approx(start[:3], abs=2e-3)
    assert tilt_of_quat(end[3:]) < math.radians(1)


def test_home_state_and_gravity_compensation() -> None:
    sim = sim_of(obj("c", "cube", 0.0, 0.5))
    assert sim.state_vector() == pytest.approx([*HOME_POS, math.pi, 0.0, 0.0, 0.045, -0.045])
    for _ in range(100):
        sim.step(np.array([0, 0, 0, 0, 0, 0, -1.0]))
    assert sim.tcp_pos() == pytest.approx(HOME_POS, abs=1e-3)
    assert sim.held_object() is None


def test_delta_actions_move_the_tool_as_commanded() -> None:
    sim = sim_of(obj("c", "cube", 0.2, 0.6))
    start = sim.tcp_pos()
    for _ in range(4):
        sim.step([0.5, 0, 0, 0, 0, 0, -1])  # 2.5 cm per step
    moved = sim.tcp_pos() - start
    assert 0.08 < moved[0] <= 0.1 and abs(moved[1]) < 1e-3 and abs(moved[2]) < 1e-3
    for _ in range(6):
        sim.step([0, 0, 0, 0, 0, 0.4, -1])  # +0.2 rad of world yaw per step
    assert sim.joint_angles()[0] == pytest.approx(1.2, abs=0.05)
    for _ in range(10):
        sim.step([0, 0, 0, 0, 0, 0, 1])
    assert sim.gripper_opening() < 0.002 and sim.gripper_qpos()[0] == pytest.approx(-sim.gripper_qpos()[1], abs=1e-6)


def test_abs_eef_reaches_the_commanded_pose() -> None:
    sim = sim_of(obj("c", "cube", 0.2, 0.6), config=SimConfig(cameras=(), action_space="abs_eef"))
    tool = axis_angle_to_mat(np.array([math.pi, 0.0, 0.0]))
    turned = axis_angle_to_mat(np.array([0.0, 0.0, 0.5])) @ tool
    target = np.array([-0.1, 0.4, 0.2])
    for _ in range(30):
        sim.step(np.concatenate([target, mat_to_axis_angle(turned), [-1.0]]))
    assert sim.tcp_pos() == pytest.approx(target, abs=2e-3)
    err = sim.tool_mat() @ turned.T
    assert float(np.linalg.norm(mat_to_axis_angle(err))) < math.radians(1)


@pytest.mark.parametrize(
    "action",
    [[np.nan, 0, 0, 0, 0, 0, 0], [0, 0, np.inf, 0, 0, 0, 0], [0.1] * 6, [[0.0] * 7], "forward", None],
)
def test_bad_actions_raise_and_leave_the_simulation_untouched(action: object) -> None:
    sim = sim_of(obj("c", "cube", 0.0, 0.5))
    sim.step([0.2, 0, -0.2, 0, 0, 0, -1])
    before = physics_bytes(sim), sim.steps
    with pytest.raises(InvalidActionError):
        sim.step(action)
    assert (physics_bytes(sim), sim.steps) == before


def test_clip_policy_repairs_non_finite_entries_like_a_neutral_action() -> None:
    clip = SimConfig(cameras=(), bad_action="clip")
    a, b = sim_of(obj("c", "cube", 0.0, 0.5), config=clip), sim_of(obj("c", "cube", 0.0, 0.5), config=clip)
    a.step([np.nan, 0.3, -np.inf, np.nan, 0, 0, -1])
    b.step([0.0, 0.3, -1.0, 0.0, 0, 0, -1])
    assert physics_bytes(a) == physics_bytes(b)
    with pytest.raises(InvalidActionError, match="shape"):
        a.step([0.0] * 8)
    absolute = sim_of(
        obj("c", "cube", 0.0, 0.5), config=SimConfig(cameras=(), bad_action="clip", action_space="abs_eef")
    )
    with pytest.raises(InvalidActionError, match="NaN"):
        absolute.step([np.nan, 0.4, 0.2, math.pi, 0, 0, -1])


def test_unstable_physics_is_detected_reported_and_rolled_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # MuJoCo logs its own warnings to MUJOCO_LOG.TXT in the working directory
    sim = sim_of(obj("c", "cube", 0.0, 0.5))
    sim.step(ZERO)
    sim.data.qvel[sim._free_dofs[:3]] = [0.0, 0.0, 1e5]  # an absurd kick, as a numerical blow-up would give
    before = physics_bytes(sim)
    with pytest.raises(SimulationError, match="moves at"):
        sim.step(ZERO)
    assert physics_bytes(sim) == before and sim.steps == 1
    sim.data.qpos[sim._free_z[0]] = np.nan
    with pytest.raises(SimulationError, match="non-finite"):
        sim.step(ZERO)


def test_state_save_and_restore_continue_bitwise() -> None:
    sim = sim_of(obj("c", "cube", 0.0, 0.45), obj("s", "sphere", 0.1, 0.5))
    rng = np.random.default_rng(0)
    actions = rng.uniform(-0.5, 0.5, size=(30, 7))
    for a in actions[:10]:
        sim.step(a)
    saved = sim.get_state()
    for a in actions[10:]:
        sim.step(a)
    first = physics_bytes(sim), sim.object_poses().tobytes()
    sim.set_state(saved)
    assert sim.steps == 10
    for a in actions[10:]:
        sim.step(a)
    assert (physics_bytes(sim), sim.object_poses().tobytes()) == first
    other = sim_of(obj("c", "cube", 0.0, 0.46))
    with pytest.raises(ConfigError, match="different scene"):
        other.set_state(saved)


def test_restore_brings_back_sleeping_objects_too() -> None:
    from heedful.sims.tabletop.skillset import Skills

    sim = sim_of(obj("c", "cube", 0.0, 0.45))
    saved = sim.get_state()
    asleep_before = sim.data.tree_asleep.copy()
    actions: list[np.ndarray] = []

    def step(a: np.ndarray) -> None:
        actions.append(np.array(a))
        sim.step(a)

    assert Skills(sim, step=step).pick("c").success  # touching the cube wakes it
    assert not np.array_equal(sim.data.tree_asleep, asleep_before)
    first = physics_bytes(sim)
    sim.set_state(saved)
    assert np.array_equal(sim.data.tree_asleep, asleep_before)
    for a in actions:
        sim.step(a)
    assert physics_bytes(sim) == first


def test_timing_and_names_are_validated() -> None:
    assert SimConfig(control_hz=10, timestep=0.002).physics_substeps == 50
    with pytest.raises(ValidationError, match="whole number"):
        SimConfig(control_hz=30, timestep=0.002)
    sim = sim_of(obj("c", "cube", 0.0, 0.5))
    with pytest.raises(ConfigError, match="no object named 'x'"):
        sim.object_pose("x")
    with pytest.raises(ConfigError, match="unknown camera"):
        sim.render("top")


def test_reset_jitter_is_seeded() -> None:
    cfg = SimConfig(cameras=(), reset_jitter_m=0.02, reset_jitter_deg=15)
    a, b = sim_of(obj("c", "cube", 0.0, 0.5), config=cfg), sim_of(obj("c", "cube", 0.0, 0.5), config=cfg)
    a.reset(np.random.default_rng(3))
    b.reset(np.random.default_rng(3))
    assert a.object_poses().tobytes() == b.object_poses().tobytes()
    b.reset(np.random.default_rng(4))
    assert a.object_poses().tobytes() != b.object_poses().tobytes()
    assert float(np.abs(a.object_pose("c")[:2] - [0.0, 0.5]).max()) <= 0.02 + 1e-3
