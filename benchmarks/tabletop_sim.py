"""Control steps per second of the tabletop simulator, next to two references measured in the same run.

    MUJOCO_GL=egl python benchmarks/tabletop_sim.py [--steps 600] [--rounds 3] [--skip-robosuite]

Rows (each without cameras and with two 224x224 cameras, agentview + wrist):
  heedful env       `TabletopEnv.step` with random delta_eef actions (the whole Gymnasium path: action
                    checks, controller, 25 physics steps, observation, trajectory recorder).
  raw MuJoCo        the same model and the same actuator targets replayed with `mj_step(nstep=25)` alone,
                    plus `Renderer.update_scene` / `render` for the two cameras: the ceiling for this scene.
  robosuite Lift    robosuite 1.5.2 (LIBERO's stack) Panda Lift with OSC at 20 Hz, random actions, cameras
                    agentview + robot0_eye_in_hand at 224x224. It needs mujoco 3.3.7, so it runs in its own
                    virtual environment, created on first use under ~/.cache/heedful-bench/robosuite-venv.
Targets: heedful / raw >= 0.8; heedful / robosuite >= 10 without cameras and >= 15 with cameras.
Our two rows are the best of `--rounds` alternating rounds (the machine is shared); robosuite runs once.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from heedful.sims.tabletop.config import CAMERAS, SimConfig
from heedful.sims.tabletop.env import TabletopEnv
from heedful.sims.tabletop.render import make_renderer
from heedful.sims.tabletop.sim import SimState, TabletopSim
from heedful.sims.tabletop.spec import ObjectSpec, SceneSpec

VENV = Path.home() / ".cache" / "heedful-bench" / "robosuite-venv"
ROBOSUITE_PINS = ["robosuite==1.5.2", "mujoco==3.3.7"]

ROBOSUITE_CHILD = r"""
import json, os, sys, time
import numpy as np
import robosuite as suite
steps, cameras = int(sys.argv[1]), sys.argv[2] == "1"
kwargs = dict(robots="Panda", has_renderer=False, control_freq=20, horizon=10**6, reward_shaping=True)
if cameras:
    kwargs.update(has_offscreen_renderer=True, use_camera_obs=True,
                  camera_names=["agentview", "robot0_eye_in_hand"], camera_heights=224, camera_widths=224)
else:
    kwargs.update(has_offscreen_renderer=False, use_camera_obs=False)
env = suite.make("Lift", **kwargs)
env.reset()
low, high = env.action_spec
rng = np.random.default_rng(0)
actions = rng.uniform(low, high, size=(steps, low.shape[0]))
for a in actions[:10]:
    env.step(a)
start = time.perf_counter()
for a in actions:
    env.step(a)
elapsed = time.perf_counter() - start
print(json.dumps({"steps_per_s": steps / elapsed, "version": suite.__version__}))
"""


def scene() -> SceneSpec:
    """Six free primitives and a bowl, like a RoboFollow scene."""

    def o(name: str, shape: str, color: str, x: float, y: float, size: str = "small") -> ObjectSpec:
        return ObjectSpec(name=name, shape=shape, color=color, size=size, x=x, y=y)  # type: ignore[arg-type]

    return SceneSpec(
        objects=(
            o("red_cube", "cube", "red", -0.2, 0.4),
            o("blue_cube", "cube", "blue", 0.2, 0.4, "large"),
            o("green_cylinder", "cylinder", "green", 0.0, 0.5),
            o("yellow_ball", "sphere", "yellow", -0.15, 0.6),
            o("orange_block", "block", "orange", 0.15, 0.55),
            o("purple_bar", "bar", "purple", -0.05, 0.66),
            o("green_bowl", "bowl", "green", 0.22, 0.66),
        )
    )


def bench_heedful(steps: int, cameras: bool) -> tuple[float, SimState, list[np.ndarray]]:
    """Env steps/s, the start state and the actuator targets the controller produced (for the raw replay)."""
    env = TabletopEnv(scene(), SimConfig(cameras=CAMERAS if cameras else ()))
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    # Moderate random motions that keep the gripper above the table and sweep it through the scene.
    actions = rng.uniform(-0.5, 0.5, size=(steps + 10, 7)).astype(np.float32)
    for a in actions[:10]:
        env.step(a)
    state = env.get_state()
    start = time.perf_counter()
    for a in actions[10:]:
        env.step(a)
    elapsed = time.perf_counter() - start
    env.set_state(state)  # replay once more (untimed) to collect the actuator targets for the raw run
    ctrls = []
    for a in actions[10:]:
        env.sim.step(a)
        ctrls.append(env.sim.data.ctrl.copy())
    env.close()
    return steps / elapsed, state, ctrls


def bench_raw(start: SimState, ctrls: list[np.ndarray], cameras: bool) -> float:
    """The same model, state (sleeping objects included) and targets, stepped by MuJoCo alone."""
    import mujoco  # type: ignore[import-untyped]

    sim = TabletopSim(scene(), SimConfig(cameras=()))
    sim.set_state(start)
    model, data = sim.model, sim.data
    renderer = make_renderer(model, sim.config.render) if cameras else None
    substeps = sim.config.physics_substeps
    begin = time.perf_counter()
    for ctrl in ctrls:
        data.ctrl[:] = ctrl
        mujoco.mj_step(model, data, nstep=substeps)
        if renderer is not None:
            for cam in CAMERAS:
                renderer.update_scene(data, camera=cam)
                renderer.render()
    elapsed = time.perf_counter() - begin
    if renderer is not None:
        renderer.close()
    return len(ctrls) / elapsed


def ensure_robosuite_venv() -> Path:
    """Create the robosuite virtual environment on first use (a marker records a finished install)."""
    python = VENV / "bin" / "python"
    marker = VENV / "heedful-installed.txt"
    if marker.exists() and marker.read_text() == " ".join(ROBOSUITE_PINS):
        return python
    VENV.parent.mkdir(parents=True, exist_ok=True)
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", *ROBOSUITE_PINS], check=True)
    marker.write_text(" ".join(ROBOSUITE_PINS))
    return python


def bench_robosuite(steps: int, cameras: bool) -> float:
    python = ensure_robosuite_venv()
    out = subprocess.run(
        [str(python), "-c", ROBOSUITE_CHILD, str(steps), "1" if cameras else "0"],
        capture_output=True,
        text=True,
        env={**os.environ, "MUJOCO_GL": "egl", "PYOPENGL_PLATFORM": "egl"},
        check=False,
    )
    if out.returncode != 0:
        raise RuntimeError(f"robosuite run failed:\n{out.stderr[-3000:]}")
    return float(json.loads(out.stdout.strip().splitlines()[-1])["steps_per_s"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--steps", type=int, default=600, help="control steps per measurement (cameras: a third)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds; the best of each is kept")
    parser.add_argument("--skip-robosuite", action="store_true")
    args = parser.parse_args()
    rows = []
    for cameras in (False, True):
        steps = args.steps if not cameras else max(50, args.steps // 3)
        # The machine is shared: alternate the two measurements and keep the best of each.
        ours, raw = 0.0, 0.0
        for _ in range(args.rounds):
            rate, start_state, ctrls = bench_heedful(steps, cameras)
            ours = max(ours, rate)
            raw = max(raw, bench_raw(start_state, ctrls, cameras))
        robo: float | None = None
        robo_note = ""
        if not args.skip_robosuite:
            try:
                robo = bench_robosuite(300 if not cameras else 60, cameras)
            except (RuntimeError, subprocess.CalledProcessError, OSError) as exc:
                robo_note = f"robosuite unavailable: {str(exc).strip().splitlines()[-1]}"
        rows.append((cameras, ours, raw, robo, robo_note))
    print(f"{'cameras':<22}{'heedful env':>14}{'raw MuJoCo':>14}{'ratio':>8}{'robosuite':>12}{'speedup':>9}")
    for cameras, ours, raw, robo, note in rows:
        label = "2 x 224x224" if cameras else "none"
        robo_text = f"{robo:12.1f}{ours / robo:8.1f}x" if robo else f"{'-':>12}{'-':>9}"
        print(f"{label:<22}{ours:14.1f}{raw:14.1f}{ours / raw:8.2f}{robo_text}")
        if note:
            print(f"  {note}")
    print("units: control steps per second (20 Hz control, 2 ms physics, 25 physics steps per control step)")


if __name__ == "__main__":
    main()
