"""Cost of the decisions visual condition's images, as ratios against references measured in the same run.

- generation with images (`heedful generate decisions --images`, 85 anchor images at 448 x 448) vs. the same
  generation without images;
- one image: compile the anchor's MuJoCo model, render and PNG-encode (the mean over 20 anchors);
- a visual oracle run of the visual subset (reads and checks every image) vs. the structured run of the same
  episodes (`--subset visual`).

    MUJOCO_GL=egl python benchmarks/decision_images.py
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("MUJOCO_GL", "egl")

from heedful.api import evaluate
from heedful.suites.decisions.images import encode_png, render_state, visual_states
from heedful.suites.decisions.suite import SUITE


def timed(fn):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def main() -> None:
    suite = SUITE
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)

        def plain() -> object:
            return suite.save_dataset(suite.generate(0), root / "plain", {})

        def with_images() -> object:
            episodes = suite.attach_images(suite.generate(0), root / "images", size=448, progress=None)
            return suite.save_dataset(episodes, root / "images", {})

        _, t_plain = timed(plain)
        _, t_images = timed(with_images)
        states = list(visual_states(suite.load_dataset(root / "images")).values())
        _, t_render = timed(lambda: [encode_png(render_state(s)) for s in states[:20]])
        print(f"generate without images: {t_plain:6.2f} s")
        print(f"generate with images:    {t_images:6.2f} s ({len(states)} images)  ratio {t_images / t_plain:5.1f}x")
        print(f"one image (compile + render 448x448 + PNG): {1000 * t_render / 20:6.1f} ms")

        def run(name: str, options: dict[str, str]) -> float:
            _, seconds = timed(
                lambda: evaluate(
                    suite="decisions",
                    agent="oracle",
                    out=root / name,
                    dataset=root / "images",
                    options=options,
                    progress=False,
                )
            )
            return seconds

        t_structured = run("structured", {"subset": "visual"})
        t_visual = run("visual", {"condition": "visual"})
        print(f"oracle run, visual subset, structured: {t_structured:6.2f} s")
        print(f"oracle run, visual subset, visual:     {t_visual:6.2f} s  ratio {t_visual / t_structured:5.2f}x")


if __name__ == "__main__":
    main()
