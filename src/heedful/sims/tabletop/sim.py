"""The tabletop simulation: a MuJoCo model of a scene spec, stepped at the control rate.

Each control step sets actuator targets from an action and runs `physics_substeps` physics steps. The
last physics step is split (`mj_step2` first, `mj_step1` last) so that between control steps every
derived quantity (body poses, contacts) matches the current state without an extra `mj_forward`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from heedful.errors import ConfigError, SimulationError
from heedful.sims.tabletop.config import SimConfig
from heedful.sims.tabletop.control import action_to_ctrl, validate_action
from heedful.sims.tabletop.deps import require_mujoco
from heedful.sims.tabletop.mjcf import FINGER_BODIES, FINGER_JOINTS, GRIPPER_BODY, GRIPPER_JOINTS, build_mjcf
from heedful.sims.tabletop.rotations import (
    TOOL_FROM_BODY,
    TOOL_FROM_BODY_QUAT,
    quat_axis_angle,
    quat_mul,
    yaw_of_quat,
)
from heedful.sims.tabletop.spec import STATIC_SHAPES, SceneSpec, default_scene, validate_scene

Array = NDArray[np.float64]
MAX_OBJECT_SPEED = 10.0  # m/s: anything faster on a tabletop is a numerical blow-up
MAX_OBJECT_SPIN = 300.0  # rad/s
MIN_OBJECT_Z = -0.1  # meters: below this an object fell through the table
_CALM = min(MAX_OBJECT_SPEED, MAX_OBJECT_SPIN)


@dataclass(frozen=True)
class SimState:
    """A snapshot of a simulation that `TabletopSim.set_state` restores bitwise."""

    scene_digest: str
    physics: bytes
    asleep: bytes  # MuJoCo's per-tree sleep counters, which mj_getState does not cover
    steps: int
    gripper_command: float


class TabletopSim:
    """A scene on the table with a floating parallel-jaw gripper.

    Args:
        scene: Objects on the table (a default scene when omitted).
        config: Timing, action space, rendering.

    Raises:
        ConfigError: if the scene cannot be built (overlaps, bad supports, too many objects).
    """

    def __init__(self, scene: SceneSpec | None = None, config: SimConfig | None = None) -> None:
        self.config = config or SimConfig()
        self.scene = scene if scene is not None else default_scene()
        self.scene_digest = self.scene.digest()
        validate_scene(self.scene, max_objects=self.config.max_objects, margin=0.005 + 2 * self.config.reset_jitter_m)
        self._mj = require_mujoco()
        mj = self._mj
        try:
            self.model = mj.MjModel.from_xml_string(build_mjcf(self.scene, self.config))
        except ValueError as exc:
            raise ConfigError(f"the scene could not be compiled into a MuJoCo model: {exc}") from exc
        self.data = mj.MjData(self.model)
        self._index()
        self._state_spec = int(mj.mjtState.mjSTATE_INTEGRATION)
        self._snapshot = np.empty(mj.mj_stateSize(self.model, self._state_spec))
        self._renderer: Any = None
        self.steps = 0
        self.gripper_command = -1.0
        self.last_action: Array = np.zeros(7)
        self.reset()

    def _index(self) -> None:
        m, mj = self.model, self._mj
        jid = [mj.mj_name2id(m, mj.mjtObj.mjOBJ_JOINT, name) for name in GRIPPER_JOINTS + FINGER_JOINTS]
        self._arm_qadr = np.array([m.jnt_qposadr[j] for j in jid[:6]])
        self._arm_q0 = int(self._arm_qadr[0])
        if not np.array_equal(self._arm_qadr, np.arange(self._arm_q0, self._arm_q0 + 6)):
            raise RuntimeError("the gripper joints must be contiguous in qpos")  # MJCF layout
        self._finger_qadr = np.array([m.jnt_qposadr[j] for j in jid[6:]])
        self._gripper_body = mj.mj_name2id(m, mj.mjtObj.mjOBJ_BODY, GRIPPER_BODY)
        self._finger_bodies = {mj.mj_name2id(m, mj.mjtObj.mjOBJ_BODY, b) for b in FINGER_BODIES}
        self._robot_bodies = self._finger_bodies | {self._gripper_body}
        self.object_names: tuple[str, ...] = tuple(o.name for o in self.scene.objects)
        self._body_ids = np.array([mj.mj_name2id(m, mj.mjtObj.mjOBJ_BODY, n) for n in self.object_names], dtype=int)
        free = [o.name for o in self.scene.objects if o.shape not in STATIC_SHAPES]
        self.free_objects: tuple[str, ...] = tuple(free)
        joints = [mj.mj_name2id(m, mj.mjtObj.mjOBJ_JOINT, n) for n in free]
        self._free_qadr = {n: int(m.jnt_qposadr[j]) for n, j in zip(free, joints, strict=True)}
        self._free_dofs = np.array([int(m.jnt_dofadr[j]) + k for j in joints for k in range(6)], dtype=int)
        if self._free_dofs.size and not np.array_equal(self._free_dofs, np.arange(self._free_dofs[0], m.nv)):
            raise RuntimeError("the objects' degrees of freedom must come last and be contiguous")  # MJCF layout
        self._free_z = np.array([self._free_qadr[n] + 2 for n in free], dtype=int)
        if self._free_z.size and not np.array_equal(np.diff(self._free_z), np.full(self._free_z.size - 1, 7)):
            raise RuntimeError("the objects' free joints must be contiguous in qpos")  # MJCF layout
        self._body_of_geom = np.asarray(m.geom_bodyid, dtype=int)
        d = self.data
        self._state_views: tuple[Array, Array] = (d.qpos, d.qvel)
        self._free_views: tuple[Array, Array] | None = None
        if self._free_dofs.size:
            self._free_views = (d.qvel[self._free_dofs[0] :].reshape(-1, 6), d.qpos[self._free_z[0] :: 7])

    # ---------------------------------------------------------------- stepping

    def reset(self, rng: np.random.Generator | None = None) -> None:
        """Put the gripper home and every object where the scene puts it (plus optional seeded jitter), then settle."""
        mj, m, d = self._mj, self.model, self.data
        mj.mj_resetDataKeyframe(m, d, 0)
        if rng is not None and (self.config.reset_jitter_m > 0 or self.config.reset_jitter_deg > 0):
            self._jitter(rng)
        settle = round(self.config.settle_seconds / self.config.timestep)
        if settle:
            mj.mj_step(m, d, nstep=settle)
        d.time = 0.0
        mj.mj_step1(m, d)
        self.steps = 0
        self.gripper_command = -1.0
        self.last_action = np.zeros(7)
        problem = self._instability()
        if problem:
            raise SimulationError(f"the scene is unstable right after reset: {problem}; check overlaps and stacks")

    def _jitter(self, rng: np.random.Generator) -> None:
        """Shift each stack of free objects by the same random xy offset and turn each object by a random yaw."""
        cfg, d = self.config, self.data
        roots: dict[str, str] = {}
        for obj in self.scene.objects:
            root = obj
            while root.on is not None:
                root = self.scene.by_name(root.on)
            roots[obj.name] = root.name
        offsets = {
            o.name: rng.uniform(-cfg.reset_jitter_m, cfg.reset_jitter_m, size=2)
            for o in self.scene.objects
            if o.on is None
        }
        for name in self.free_objects:
            adr = self._free_qadr[name]
            d.qpos[adr : adr + 2] += offsets[roots[name]]
            dyaw = math.radians(float(rng.uniform(-cfg.reset_jitter_deg, cfg.reset_jitter_deg)))
            w, x, y, z = d.qpos[adr + 3 : adr + 7]
            c, s = math.cos(dyaw / 2), math.sin(dyaw / 2)
            d.qpos[adr + 3 : adr + 7] = [c * w - s * z, c * x - s * y, c * y + s * x, c * z + s * w]

    def step(self, action: object) -> None:
        """Apply one action and advance one control step.

        Raises:
            InvalidActionError: the action is malformed (the simulation is untouched).
            SimulationError: the physics blew up (the state before the step is restored).
        """
        act = validate_action(action, self.config)
        mj, m, d = self._mj, self.model, self.data
        ctrl = action_to_ctrl(act, self.config, d.qpos[self._arm_q0 : self._arm_q0 + 6].tolist())
        mj.mj_getState(m, d, self._snapshot, self._state_spec)
        asleep = d.tree_asleep.copy()
        d.ctrl[:] = ctrl
        mj.mj_step2(m, d)
        substeps = self.config.physics_substeps
        if substeps > 1:
            mj.mj_step(m, d, nstep=substeps - 1)
        mj.mj_step1(m, d)
        problem = self._instability()
        if problem:
            self._restore(self._snapshot, asleep)
            raise SimulationError(f"physics became unstable at control step {self.steps + 1}: {problem}")
        self.steps += 1
        self.gripper_command = min(1.0, max(-1.0, float(act[6])))
        self.last_action = act

    def _instability(self) -> str | None:
        # Views made once (MjData's buffers never move): this runs every control step.
        qpos, qvel = self._state_views
        # One sum per array: any NaN or inf (or an overflow to inf) makes it non-finite.
        if not math.isfinite(float(qpos.sum()) + float(qvel.sum())):
            return "non-finite positions or velocities"
        if self._free_views is None:
            return None
        free_qvel, free_z = self._free_views
        # One reduction for the common case: nothing moves faster than the lower of the two limits.
        if float(np.abs(free_qvel).max()) > _CALM:
            peak = np.abs(free_qvel).max(axis=0).tolist()
            speed, spin = max(peak[:3]), max(peak[3:])
            if speed > MAX_OBJECT_SPEED or spin > MAX_OBJECT_SPIN:
                return f"an object moves at {speed:.1f} m/s or spins at {spin:.0f} rad/s"
        lowest = float(free_z.min())
        if lowest < MIN_OBJECT_Z:
            name = self.free_objects[int(np.argmin(free_z))]
            return f"object {name!r} fell through the table (z = {lowest:.3f} m)"
        return None

    # ---------------------------------------------------------------- state

    def get_state(self) -> SimState:
        """Snapshot everything needed to continue bitwise identically."""
        buf = np.empty(self._snapshot.shape)
        self._mj.mj_getState(self.model, self.data, buf, self._state_spec)
        asleep = np.array(self.data.tree_asleep).tobytes()
        return SimState(self.scene_digest, buf.tobytes(), asleep, self.steps, self.gripper_command)

    def set_state(self, state: SimState) -> None:
        """Restore a snapshot taken from a simulation of the same scene.

        Raises:
            ConfigError: the snapshot belongs to another scene.
        """
        if state.scene_digest != self.scene_digest:
            raise ConfigError("this state was saved from a different scene; rebuild the simulation with that scene")
        buf = np.frombuffer(state.physics, dtype=np.float64)
        if buf.shape != self._snapshot.shape:
            raise ConfigError(f"state has {buf.size} values, this model needs {self._snapshot.size}")
        self._restore(buf, np.frombuffer(state.asleep, dtype=self.data.tree_asleep.dtype))
        self.steps = state.steps
        self.gripper_command = state.gripper_command

    def _restore(self, physics: Array, asleep: NDArray[np.int32]) -> None:
        """Set the physics state and the sleep state, then recompute everything derived from them.

        Sleeping bodies keep the poses computed before they fell asleep, so the poses are first computed
        with every tree awake, and only then are the sleep counters put back.
        """
        mj, m, d = self._mj, self.model, self.data
        mj.mj_setState(m, d, physics, self._state_spec)
        self._set_asleep(np.full_like(asleep, -(1 + mj.mjMINAWAKE)))
        mj.mj_step1(m, d)
        self._set_asleep(asleep)
        mj.mj_step1(m, d)

    def _set_asleep(self, asleep: NDArray[np.int32]) -> None:
        """Restore MuJoCo's sleep counters and the arrays derived from them.

        mj_setState does not cover sleeping, and MuJoCo's own update of the derived arrays
        (mj_updateSleep) is not in the Python bindings, so this mirrors it: a tree is awake when its
        counter is negative; static bodies stay static; awake and static bodies are listed.
        """
        m, d = self.model, self.data
        d.tree_asleep[:] = asleep
        tree_awake = (np.asarray(asleep) < 0).astype(d.tree_awake.dtype)
        d.tree_awake[:] = tree_awake
        d.ntree_awake = int(tree_awake.sum())
        tree = np.asarray(m.body_treeid)
        static = tree < 0
        mocap = np.asarray(m.body_mocapid)[np.asarray(m.body_rootid)] >= 0
        body = np.where(static, np.where(mocap, 1, -1), np.where(tree_awake[np.maximum(tree, 0)] > 0, 1, 0))
        d.body_awake[:] = body
        listed = np.flatnonzero(body != 0)
        d.body_awake_ind[: listed.size] = listed
        d.nbody_awake = int(listed.size)
        parents = np.flatnonzero(body[np.asarray(m.body_parentid)] != 0)
        parents = parents[parents > 0]
        d.parent_awake_ind[: parents.size] = parents
        d.nparent_awake = int(parents.size)
        dof_body = np.asarray(m.dof_bodyid)
        dofs = np.flatnonzero((tree[dof_body] >= 0) & (body[dof_body] == 1))
        d.dof_awake_ind[: dofs.size] = dofs
        d.nv_awake = int(dofs.size)

    # ---------------------------------------------------------------- reading

    def tcp_pos(self) -> Array:
        """Tool center point position (meters, table frame)."""
        pos: Array = self.data.qpos[self._arm_q0 : self._arm_q0 + 3].copy()  # the joints are contiguous (_index)
        return pos

    def joint_angles(self) -> tuple[float, float, float]:
        """Current (yaw, pitch, roll) of the gripper hinges."""
        q = self.data.qpos[self._arm_qadr[3:]]
        return float(q[0]), float(q[1]), float(q[2])

    def tool_mat(self) -> Array:
        """Rotation of the tool frame (z pointing out of the fingers)."""
        body = np.asarray(self.data.xmat[self._gripper_body], dtype=np.float64).reshape(3, 3)
        return np.asarray(body @ TOOL_FROM_BODY, dtype=np.float64)

    def tool_quat(self) -> Array:
        """Quaternion (w, x, y, z, with w >= 0) of the tool frame."""
        return np.array(self.tool_quat_tuple())

    def tool_quat_tuple(self) -> tuple[float, float, float, float]:
        """`tool_quat` as plain floats (the per-step recorder and state vector need no array)."""
        w, x, y, z = self.data.xquat[self._gripper_body].tolist()
        q = quat_mul((w, x, y, z), TOOL_FROM_BODY_QUAT)
        return q if q[0] >= 0 else (-q[0], -q[1], -q[2], -q[3])

    def gripper_qpos(self) -> Array:
        """Finger positions as (left, -right), Panda style: (0.045, -0.045) open, (0, 0) closed."""
        q = self.data.qpos[self._finger_qadr]
        return np.array([q[0], -q[1]], dtype=np.float64)

    def gripper_opening(self) -> float:
        """Distance between the finger pads (meters)."""
        q = self.data.qpos[self._finger_qadr]
        return float(q[0] + q[1])

    def state_vector(self) -> Array:
        """The 8-D proprioceptive state: TCP position, tool axis-angle, gripper qpos."""
        qpos = self.data.qpos
        left, right = qpos[self._finger_qadr].tolist()
        return np.array(
            [*qpos[self._arm_q0 : self._arm_q0 + 3].tolist(), *quat_axis_angle(self.tool_quat_tuple()), left, -right]
        )

    def object_poses(self) -> Array:
        """Pose (x, y, z, qw, qx, qy, qz) of every object, in scene order, shape (N, 7)."""
        d = self.data
        return np.concatenate([d.xpos[self._body_ids], d.xquat[self._body_ids]], axis=1)

    def object_pose(self, name: str) -> Array:
        """Pose (x, y, z, qw, qx, qy, qz) of one object."""
        body = self._body_ids[self._object_index(name)]
        return np.concatenate([self.data.xpos[body], self.data.xquat[body]])

    def object_yaw(self, name: str) -> float:
        """Heading of the object's x axis (radians)."""
        return yaw_of_quat(self.object_pose(name)[3:])

    def object_speed(self, name: str) -> float:
        """Largest absolute velocity component of a free object (m/s or rad/s); 0 for static objects."""
        if name not in self._free_qadr:
            self._object_index(name)
            return 0.0
        i = self.free_objects.index(name)
        return float(np.abs(self.data.qvel[self._free_dofs[6 * i : 6 * i + 6]]).max())

    def _object_index(self, name: str) -> int:
        try:
            return self.object_names.index(name)
        except ValueError:
            raise ConfigError(f"no object named {name!r}; known objects: {list(self.object_names)}") from None

    def held_object(self) -> str | None:
        """The object both fingers touch, if any."""
        held, _ = self.gripper_contacts()
        return None if held < 0 else self.object_names[held]

    def gripper_contacts(self) -> tuple[int, tuple[bool, ...]]:
        """(index of the object both fingers touch or -1, per object: whether any gripper body touches it).

        Read from MuJoCo's contact list, which is complete for anything touching the gripper: the gripper
        never sleeps, and a body it touches is awake. (Contacts between two resting objects are not listed
        while they sleep, which is why the scorers judge support from poses.)
        """
        d = self.data
        touched = [False] * len(self._body_ids)
        if d.ncon == 0:
            return -1, tuple(touched)
        pairs = self._body_of_geom[np.asarray(d.contact.geom[: d.ncon], dtype=int)]
        fingers: dict[int, set[int]] = {}
        robot = self._robot_bodies
        for b1, b2 in pairs.tolist():
            for part, other in ((b1, b2), (b2, b1)):
                if part in robot and other not in robot:
                    fingers.setdefault(other, set())
                    if part in self._finger_bodies:
                        fingers[other].add(part)
        held = -1
        for i, body in enumerate(self._body_ids.tolist()):
            if body in fingers:
                touched[i] = True
                if held < 0 and len(fingers[body]) == 2:
                    held = i
        return held, tuple(touched)

    # ---------------------------------------------------------------- rendering

    def render(self, camera: str) -> NDArray[np.uint8]:
        """An upright RGB image (H, W, 3) from `agentview` or `wrist`."""
        if camera not in ("agentview", "wrist"):
            raise ConfigError(f"unknown camera {camera!r}; choose 'agentview' or 'wrist'")
        if self._renderer is None:
            from heedful.sims.tabletop.render import make_renderer

            self._renderer = make_renderer(self.model, self.config.render)
        self._renderer.update_scene(self.data, camera=camera)
        return np.asarray(self._renderer.render(), dtype=np.uint8)

    def close(self) -> None:
        """Release the renderer's OpenGL context."""
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
