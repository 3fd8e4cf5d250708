"""Hand-built trajectories for the stage scorers (a helper module, not a test file).

`Script` moves the tool, the gripper and the objects row by row through plain arithmetic (no physics),
so each test knows exactly what happened and therefore which scores are right.
"""

from __future__ import annotations

import math

import numpy as np

from heedful.sims.tabletop.config import HOME_POS
from heedful.sims.tabletop.recorder import CLOSE_EVENT, OPEN_EVENT, Trajectory
from heedful.sims.tabletop.spec import resting_z
from heedful.suites.tabletop.model import Layout


class Script:
    """A trajectory written step by step. Every method appends rows; `build` returns the Trajectory."""

    def __init__(self, layout: Layout) -> None:
        scene = layout.scene_spec()
        self.layout = layout
        self.names = tuple(o.name for o in layout.objects)
        self.pos = {o.name: np.array([o.x, o.y, resting_z(scene, scene.by_name(o.name))]) for o in layout.objects}
        self.yaw = {o.name: math.radians(o.yaw_deg) for o in layout.objects}
        self.tcp = np.array(HOME_POS, dtype=float)
        self.grip = -1.0
        self.held: str | None = None
        self.pushing: str | None = None
        self.rows: list[tuple[np.ndarray, float, dict[str, np.ndarray], dict[str, float]]] = []
        self.contacts: list[tuple[int, tuple[bool, ...]]] = []
        self._row()

    def _row(self) -> None:
        self.rows.append((self.tcp.copy(), self.grip, {k: v.copy() for k, v in self.pos.items()}, dict(self.yaw)))
        held = self.names.index(self.held) if self.held else -1
        touching = {self.held, self.pushing} - {None}
        self.contacts.append((held, tuple(n in touching for n in self.names)))

    def hold(self, n: int = 5) -> Script:
        for _ in range(n):
            self._row()
        return self

    def move(self, x: float, y: float, z: float, n: int = 8) -> Script:
        """Move the tool in a straight line; a held object keeps its offset from the tool."""
        start = self.tcp.copy()
        offset = self.pos[self.held] - start if self.held else None
        for i in range(1, n + 1):
            self.tcp = start + (np.array([x, y, z]) - start) * i / n
            if self.held and offset is not None:
                self.pos[self.held] = self.tcp + offset
            self._row()
        return self

    def above(self, name: str, dz: float = 0.0, n: int = 8) -> Script:
        """Move the tool to the object's center (plus dz)."""
        p = self.pos[name]
        return self.move(p[0], p[1], p[2] + dz, n)

    def close(self, name: str | None) -> Script:
        self.grip, self.held = 1.0, name
        return self.hold(3)

    def open(self) -> Script:
        self.grip, self.held = -1.0, None
        return self.hold(3)

    def drop(self, name: str, z: float) -> Script:
        """Put an object down at height z (it settles there)."""
        self.pos[name][2] = z
        return self.hold(1)

    def slide(self, name: str, dx: float, dy: float, n: int = 8) -> Script:
        """Push: the tool and the object move together by (dx, dy)."""
        start_t, start_o = self.tcp.copy(), self.pos[name].copy()
        self.pushing = name
        for i in range(1, n + 1):
            step = np.array([dx, dy, 0.0]) * i / n
            self.tcp, self.pos[name] = start_t + step, start_o + step
            self._row()
        self.pushing = None
        return self

    def turn(self, name: str, yaw_deg: float) -> Script:
        self.yaw[name] = math.radians(yaw_deg)
        return self.hold(1)

    def home(self, n: int = 10) -> Script:
        return self.move(*HOME_POS, n=n).hold(10)

    def build(self) -> Trajectory:
        t = len(self.rows)
        command = np.array([r[1] for r in self.rows])
        closed = command > 0
        events = np.zeros(t, dtype=np.int8)
        events[1:][closed[1:] & ~closed[:-1]] = CLOSE_EVENT
        events[1:][~closed[1:] & closed[:-1]] = OPEN_EVENT
        poses = np.zeros((t, len(self.names), 7))
        for i, (_, _, pos, yaw) in enumerate(self.rows):
            for j, name in enumerate(self.names):
                poses[i, j, :3] = pos[name]
                poses[i, j, 3] = math.cos(yaw[name] / 2)
                poses[i, j, 6] = math.sin(yaw[name] / 2)
        return Trajectory(
            object_names=self.names,
            time=np.arange(t) * 0.05,
            tcp_pos=np.array([r[0] for r in self.rows]),
            tcp_quat=np.tile([0.0, 1.0, 0.0, 0.0], (t, 1)),
            gripper_opening=np.where(closed, 0.04, 0.09),
            gripper_command=command,
            events=events,
            object_poses=poses,
            actions=np.zeros((t - 1, 7)),
            held=np.array([c[0] for c in self.contacts], dtype=np.int16),
            touched=np.array([c[1] for c in self.contacts], dtype=bool).reshape(t, len(self.names)),
        )


def pick(s: Script, name: str, lift: float = 0.10) -> Script:
    """Approach, close on `name`, lift it."""
    p = s.pos[name]
    s.move(p[0], p[1], p[2] + 0.10).move(p[0], p[1], p[2]).close(name)
    return s.move(p[0], p[1], p[2] + lift)
