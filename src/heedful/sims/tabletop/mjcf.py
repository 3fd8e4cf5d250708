"""MJCF generation: table, floating parallel-jaw gripper, cameras and the objects of a scene spec.

The gripper is one body whose origin is the tool center point (TCP), driven by position actuators on
three slide joints (x, y, z in the table frame) and three hinges (yaw, pitch, roll, composed in that
order), gravity compensated. Two fingers slide symmetrically (an equality couples them) and one
force-limited position actuator drives them through a tendon. Contacts use elliptic friction cones with
torsional friction (condim 4) so grasps hold; the bowl walls skip the table to keep contacts few.
"""

from __future__ import annotations

import math

from heedful.sims.tabletop.config import HOME_POS, HOME_YAW, MAX_TILT, WORKSPACE_HIGH, WORKSPACE_LOW, SimConfig
from heedful.sims.tabletop.spec import RGBA, ObjectSpec, SceneSpec, resting_z

GRIPPER_BODY = "robot/gripper"
FINGER_BODIES = ("robot/finger_l", "robot/finger_r")
GRIPPER_JOINTS = ("robot/x", "robot/y", "robot/z", "robot/yaw", "robot/pitch", "robot/roll")
FINGER_JOINTS = ("robot/finger_l", "robot/finger_r")
TCP_SITE = "robot/tcp"
FINGER_MAX = 0.045  # meters each finger travels from the center; full opening is twice this
FINGER_HALF = (0.006, 0.011, 0.035)  # finger box half extents; its inner face is the contact face
FINGER_Z = 0.025  # finger box center above the TCP, so fingertips sit 1 cm below the TCP

# Collision bits: table 1; objects, fingers and palm 1|2; bowl walls 2 (they never touch the table).
_TABLE_BITS = 'contype="1" conaffinity="1"'
_SOLID_BITS = 'contype="3" conaffinity="3"'
_WALL_BITS = 'contype="2" conaffinity="2"'
_VISUAL_BITS = 'contype="0" conaffinity="0"'
OBJECT_FRICTION = "0.9 0.01 0.0005"
FINGER_CONTACT = 'friction="1.5 0.02 0.001" condim="4" solref="0.004 1" solimp="0.95 0.99 0.001"'
SLIDE_GAINS = 'kp="4000" kv="80" forcerange="-30 30"'
# The slide targets pass through a first-order filter (seconds), so each new control target is approached
# smoothly instead of with a force spike that would shake a grasped object loose.
SLIDE_TIMECONST = 0.01
NOSLIP_ITERATIONS = 0
OBJECT_DENSITY = 600.0  # kg/m^3, light wood
AGENTVIEW_EYE = (0.0, 0.02, 0.95)  # above the robot's edge of the table, looking forward and down
AGENTVIEW_TARGET = (0.0, 0.47, 0.0)


def _f(*values: float) -> str:
    return " ".join(f"{v:.6g}" for v in values)


def yaw_quat(yaw: float) -> tuple[float, float, float, float]:
    """Quaternion (w, x, y, z) of a rotation by `yaw` radians about z."""
    return (math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2))


def build_mjcf(scene: SceneSpec, config: SimConfig) -> str:
    """Return the MJCF text of the whole simulation for `scene` under `config`."""
    parts = [
        '<mujoco model="heedful_tabletop">',
        '<compiler angle="radian" autolimits="true"/>',
        _option(config),
        _visual(config),
        _assets(),
        "<worldbody>",
        _stage(),
        _gripper(),
        *(_object(scene, obj) for obj in scene.objects),
        "</worldbody>",
        f'<contact><exclude body1="{FINGER_BODIES[0]}" body2="{FINGER_BODIES[1]}"/></contact>',
        '<tendon><fixed name="robot/grip">'
        f'<joint joint="{FINGER_JOINTS[0]}" coef="0.5"/><joint joint="{FINGER_JOINTS[1]}" coef="0.5"/>'
        "</fixed></tendon>",
        f'<equality><joint joint1="{FINGER_JOINTS[0]}" joint2="{FINGER_JOINTS[1]}" '
        'solref="0.005 1" solimp="0.95 0.99 0.001"/></equality>',
        _actuators(),
        _keyframe(scene),
        "</mujoco>",
    ]
    return "\n".join(parts)


def _option(config: SimConfig) -> str:
    return (
        f'<option timestep="{config.timestep:.6g}" integrator="implicitfast" cone="elliptic" impratio="2" '
        f'solver="Newton" iterations="{config.solver_iterations}" ls_iterations="20" jacobian="dense" '
        f'noslip_iterations="{NOSLIP_ITERATIONS}">'
        # MuJoCo would silently reset the data on a bad acceleration; we detect and report instead.
        # Sleeping skips objects at rest (woken by any contact with a moving body): several times faster.
        f'<flag autoreset="disable" sleep="{"enable" if config.sleep else "disable"}"/></option>'
    )


def _visual(config: SimConfig) -> str:
    r = config.render
    size = max(r.width, r.height, 64)
    return (
        "<visual>"
        f'<global offwidth="{size}" offheight="{size}"/>'
        f'<quality offsamples="{r.offsamples}" shadowsize="{2048 if r.shadows else 0}"/>'
        '<headlight ambient="0.3 0.3 0.3" diffuse="0.35 0.35 0.35" specular="0.05 0.05 0.05"/>'
        '<map znear="0.01" zfar="20"/>'
        "</visual>"
    )


def _assets() -> str:
    return (
        "<asset>"
        '<material name="table" rgba="0.62 0.52 0.40 1" specular="0.05" shininess="0.1"/>'
        '<material name="floor" rgba="0.32 0.34 0.38 1" specular="0"/>'
        '<material name="robot" rgba="0.25 0.25 0.28 1" specular="0.2"/>'
        '<material name="finger" rgba="0.70 0.70 0.72 1" specular="0.2"/>'
        "</asset>"
    )


def _stage() -> str:
    """Light, floor, table (a collision plane at z = 0 with a visual slab under it) and the agentview camera."""
    look = _look_at(AGENTVIEW_EYE, AGENTVIEW_TARGET)
    return (
        '<light name="top" pos="0 0.4 1.6" dir="0 0 -1" directional="true" castshadow="false" '
        'diffuse="0.45 0.45 0.45" specular="0.1 0.1 0.1"/>'
        f'<geom name="floor" type="plane" size="3 3 0.1" pos="0 0.45 -0.75" material="floor" {_VISUAL_BITS}/>'
        f'<geom name="table" type="plane" size="0.5 0.42 0.05" pos="0 0.45 0" material="table" '
        f'friction="{OBJECT_FRICTION}" condim="4" {_TABLE_BITS}/>'
        f'<geom name="table_slab" type="box" size="0.5 0.42 0.03" pos="0 0.45 -0.031" material="table" '
        f"{_VISUAL_BITS}/>"
        f'<camera name="agentview" pos="{_f(*AGENTVIEW_EYE)}" xyaxes="{look}" fovy="52"/>'
    )


def _look_at(eye: tuple[float, float, float], target: tuple[float, float, float]) -> str:
    """`xyaxes` of a camera at `eye` looking at `target` with image right = +x (upright, no roll)."""
    dx, dy, dz = (t - e for t, e in zip(target, eye, strict=True))
    n = math.sqrt(dx * dx + dy * dy + dz * dz)
    zc = (-dx / n, -dy / n, -dz / n)  # the camera looks along -z
    xc = (1.0, 0.0, 0.0)
    yc = (zc[1] * xc[2] - zc[2] * xc[1], zc[2] * xc[0] - zc[0] * xc[2], zc[0] * xc[1] - zc[1] * xc[0])
    return _f(*xc, *yc)


def _gripper() -> str:
    fx, fy, fz = FINGER_HALF
    joints = (
        f'<joint name="{GRIPPER_JOINTS[0]}" type="slide" axis="1 0 0" damping="0"/>'
        f'<joint name="{GRIPPER_JOINTS[1]}" type="slide" axis="0 1 0"/>'
        f'<joint name="{GRIPPER_JOINTS[2]}" type="slide" axis="0 0 1"/>'
        f'<joint name="{GRIPPER_JOINTS[3]}" type="hinge" axis="0 0 1" armature="0.005"/>'
        f'<joint name="{GRIPPER_JOINTS[4]}" type="hinge" axis="0 1 0" armature="0.005" '
        f'range="{_f(-MAX_TILT, MAX_TILT)}"/>'
        f'<joint name="{GRIPPER_JOINTS[5]}" type="hinge" axis="1 0 0" armature="0.005" '
        f'range="{_f(-MAX_TILT, MAX_TILT)}"/>'
    )
    finger = (
        '<body name="{body}" gravcomp="1"><joint name="{joint}" type="slide" axis="{axis} 0 0" range="0 {fmax}" '
        'armature="0.01" damping="2"/>'
        '<geom name="{body}" type="box" size="{size}" pos="{x} 0 {z}" mass="0.05" material="finger" '
        + FINGER_CONTACT
        + " "
        + _SOLID_BITS
        + "/></body>"
    )
    left = finger.format(
        body=FINGER_BODIES[0], joint=FINGER_JOINTS[0], axis=-1, fmax=FINGER_MAX, size=_f(fx, fy, fz), x=-fx, z=FINGER_Z
    )
    right = finger.format(
        body=FINGER_BODIES[1], joint=FINGER_JOINTS[1], axis=1, fmax=FINGER_MAX, size=_f(fx, fy, fz), x=fx, z=FINGER_Z
    )
    palm_z = FINGER_Z + fz + 0.012
    return (
        f'<body name="{GRIPPER_BODY}" gravcomp="1" sleep="never">'
        + joints
        + f'<geom name="robot/palm" type="box" size="0.058 0.0105 0.012" pos="0 0 {palm_z:.6g}" mass="0.3" '
        f'material="robot" {_SOLID_BITS}/>'
        f'<geom name="robot/wrist" type="cylinder" size="0.03 0.04" pos="0 0 {palm_z + 0.05:.6g}" mass="0.1" '
        f'material="robot" {_VISUAL_BITS}/>'
        f'<site name="{TCP_SITE}" pos="0 0 0" quat="0 1 0 0" size="0.004" rgba="1 0 0 0"/>'
        # In front of the palm looking straight down: image up is the gripper's +y (away from the robot at yaw 0).
        f'<camera name="wrist" pos="0 0.045 {palm_z - 0.005:.6g}" xyaxes="1 0 0 0 1 0" fovy="75"/>'
        + left
        + right
        + "</body>"
    )


def _actuators() -> str:
    lo, hi = WORKSPACE_LOW, WORKSPACE_HIGH
    slide = (
        '<position name="{n}" joint="{n}" ' + SLIDE_GAINS + f' timeconst="{SLIDE_TIMECONST:.6g}"'
        ' ctrlrange="{lo:.6g} {hi:.6g}"/>'
    )
    hinge = '<position name="{n}" joint="{n}" kp="40" kv="0.8" forcerange="-8 8"/>'
    parts = [slide.format(n=GRIPPER_JOINTS[i], lo=lo[i], hi=hi[i]) for i in range(3)]
    parts += [hinge.format(n=name) for name in GRIPPER_JOINTS[3:]]
    parts.append(
        f'<position name="robot/grip" tendon="robot/grip" kp="1000" kv="20" ctrlrange="0 {FINGER_MAX}" '
        'forcerange="-20 20"/>'
    )
    return "<actuator>" + "".join(parts) + "</actuator>"


def _keyframe(scene: SceneSpec) -> str:
    """The home keyframe: gripper at home, fingers open, every free object at rest where the spec puts it."""
    qpos = [*HOME_POS, HOME_YAW, 0.0, 0.0, FINGER_MAX, FINGER_MAX]
    for obj in scene.objects:
        if obj.shape == "label":
            continue
        yaw = math.radians(obj.yaw_deg)
        qpos += [obj.x, obj.y, resting_z(scene, obj), *yaw_quat(yaw)]
    ctrl = [*HOME_POS, HOME_YAW, 0.0, 0.0, FINGER_MAX]
    act = list(HOME_POS)  # the filtered slide targets start at home
    return f'<keyframe><key name="home" qpos="{_f(*qpos)}" ctrl="{_f(*ctrl)}" act="{_f(*act)}"/></keyframe>'


def _object(scene: SceneSpec, obj: ObjectSpec) -> str:
    rgba = _f(*RGBA[obj.color])
    z = resting_z(scene, obj)
    quat = _f(*yaw_quat(math.radians(obj.yaw_deg)))
    head = f'<body name="{obj.name}" pos="{_f(obj.x, obj.y, z)}" quat="{quat}">'
    if obj.shape == "label":
        a, b, c = obj.params
        return head + (
            f'<geom name="{obj.name}" type="box" size="{_f(a, b, c)}" pos="0 0 {c:.6g}" rgba="{rgba}" {_VISUAL_BITS}/>'
            "</body>"
        )
    free = f'<freejoint name="{obj.name}"/>'
    if obj.shape == "bowl":
        return head + free + _bowl_geoms(obj, rgba) + "</body>"
    common = f'rgba="{rgba}" friction="{OBJECT_FRICTION}" condim="4" density="{OBJECT_DENSITY:.6g}" {_SOLID_BITS}'
    p = obj.params
    if obj.shape == "sphere":
        # Rolling friction (condim 6) lets a pushed or dropped ball come to rest instead of rolling away.
        geom = (
            f'<geom name="{obj.name}" type="sphere" size="{p[0]:.6g}" rgba="{rgba}" friction="0.9 0.01 0.004" '
            f'condim="6" density="{OBJECT_DENSITY:.6g}" {_SOLID_BITS}/>'
        )
    elif obj.shape == "cylinder":
        geom = f'<geom name="{obj.name}" type="cylinder" size="{_f(p[0], p[1])}" {common}/>'
    else:
        geom = f'<geom name="{obj.name}" type="box" size="{_f(*p)}" {common}/>'
    return head + free + geom + "</body>"


def _bowl_geoms(obj: ObjectSpec, rgba: str) -> str:
    """A bowl from primitives: a flat base and eight wall panels around it (walls skip the table)."""
    radius, height = obj.params
    wall = 0.006
    base_h = 0.006
    sides = 8
    seg = 2 * radius * math.tan(math.pi / sides) + 0.002
    geoms = [
        f'<geom name="{obj.name}" type="cylinder" size="{_f(radius - wall, base_h / 2)}" pos="0 0 {base_h / 2:.6g}" '
        f'rgba="{rgba}" mass="0.15" friction="{OBJECT_FRICTION}" condim="4" {_SOLID_BITS}/>'
    ]
    for i in range(sides):
        ang = 2 * math.pi * i / sides
        cx, cy = (radius - wall / 2) * math.cos(ang), (radius - wall / 2) * math.sin(ang)
        geoms.append(
            f'<geom name="{obj.name}/wall{i}" type="box" size="{_f(wall / 2, seg / 2, height / 2)}" '
            f'pos="{_f(cx, cy, height / 2)}" quat="{_f(*yaw_quat(ang))}" rgba="{rgba}" mass="0.012" '
            f'friction="{OBJECT_FRICTION}" condim="4" {_WALL_BITS}/>'
        )
    return "".join(geoms)
