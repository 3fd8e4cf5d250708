"""`Skills`: the high-level action API of planner agents, one method per scripted skill.

Every method runs its skill to completion through a step function (the simulation's, or a Gymnasium
environment's so that recording and the episode horizon see every low-level action) and returns a
`SkillResult`; the results so far are kept in `history`.
"""

from __future__ import annotations

from collections.abc import Sequence

from heedful.sims.tabletop import skills
from heedful.sims.tabletop.motion import SkillGen, SkillResult, StepFn
from heedful.sims.tabletop.sim import TabletopSim

SKILL_NAMES: tuple[str, ...] = (
    "pick",
    "place_at",
    "place_on",
    "place_in",
    "place_relative",
    "push",
    "carry",
    "rotate_to",
    "go_home",
)


class Skills:
    """Scripted skills bound to one simulation.

    Args:
        sim: The simulation the skills read (privileged state).
        step: Applies one action; defaults to `sim.step`.
        max_steps: Control steps after which a skill gives up and reports failure.
    """

    def __init__(self, sim: TabletopSim, step: StepFn | None = None, max_steps: int = 600) -> None:
        self.sim = sim
        self.step = step
        self.max_steps = max_steps
        self.history: list[SkillResult] = []

    def _run(self, name: str, gen: SkillGen) -> SkillResult:
        result = skills.execute(self.sim, gen, name, step=self.step, max_steps=self.max_steps)
        self.history.append(result)
        return result

    def pick(self, obj: str) -> SkillResult:
        """Grasp `obj` from above and lift it."""
        return self._run("pick", skills.pick(self.sim, obj))

    def place_at(self, x: float, y: float, yaw_deg: float | None = None) -> SkillResult:
        """Put the held object on the table at (x, y), optionally turned to `yaw_deg`."""
        return self._run("place_at", skills.place_at(self.sim, x, y, yaw_deg))

    def place_on(self, target: str) -> SkillResult:
        """Stack the held object on `target`."""
        return self._run("place_on", skills.place_on(self.sim, target))

    def place_in(self, bowl: str) -> SkillResult:
        """Drop the held object into `bowl`."""
        return self._run("place_in", skills.place_in(self.sim, bowl))

    def place_relative(self, anchor: str, relation: str, distance: float = 0.10) -> SkillResult:
        """Put the held object `distance` m left_of / right_of / behind / in_front_of `anchor`."""
        return self._run("place_relative", skills.place_relative(self.sim, anchor, relation, distance))

    def push(self, obj: str, direction: str | float, distance: float) -> SkillResult:
        """Push `obj` by `distance` m toward `direction` (left, right, forward, backward or degrees from +x)."""
        return self._run("push", skills.push(self.sim, obj, direction, distance))

    def carry(self, waypoints: Sequence[Sequence[float]]) -> SkillResult:
        """Move the held object through tool waypoints (x, y) or (x, y, z)."""
        return self._run("carry", skills.carry(self.sim, waypoints))

    def rotate_to(self, yaw_deg: float) -> SkillResult:
        """Turn the held object (or the empty gripper) to `yaw_deg`."""
        return self._run("rotate_to", skills.rotate_to(self.sim, yaw_deg))

    def go_home(self, open_gripper: bool = True) -> SkillResult:
        """Return to the home pose."""
        return self._run("go_home", skills.go_home(self.sim, open_gripper))
