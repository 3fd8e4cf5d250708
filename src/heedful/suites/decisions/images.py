"""Images of decision states for the visual condition (One Word, Different Action's visual subset).

Each anchor that hosts a visual family is rendered once with the tabletop simulator: the same objects,
colours, shapes, sizes, positions and yaws as the structured state, seen by the fixed `agentview` camera
(image right is the robot's right, the top of the image is the far side of the table). The PNG goes to
`images/<anchor_id>.png` beside `episodes.jsonl`; every visual episode names it (`image`) with its sha256
(`image_sha256`), so the dataset's content hash covers the pixels.

Rendering is deterministic on one software stack (same MuJoCo, Mesa and Pillow builds: the same state gives
the same PNG bytes, in any process); another renderer build may differ in a few pixels, which the sha256 in
the episode lines then makes visible as a different dataset hash.
"""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Callable, Sequence
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np
from numpy.typing import NDArray

from heedful.errors import DatasetError
from heedful.sims.tabletop.config import CameraName
from heedful.suites.decisions.model import DecisionEpisode
from heedful.world.objects import TabletopState

IMAGE_DIR = "images"
IMAGE_SIZE = 448  # pixels per side: small objects stay several pixels wide; a common VLM input size
CAMERA: CameraName = "agentview"
_SAFE_NAME = re.compile(r"[^A-Za-z0-9_-]")


def render_state(state: TabletopState, size: int = IMAGE_SIZE) -> NDArray[np.uint8]:
    """Render `state` from the agentview camera as an upright (size, size, 3) RGB array.

    Objects stand exactly where the state puts them (no physics settling); 4x multisampling smooths edges.

    Raises:
        MissingDependencyError: mujoco is not installed (the `tabletop` extra).
    """
    from heedful.sims.tabletop.config import RenderConfig, SimConfig
    from heedful.sims.tabletop.sim import TabletopSim
    from heedful.sims.tabletop.spec import scene_from_tabletop_state

    render = RenderConfig(width=size, height=size, offsamples=4)
    config = SimConfig(settle_seconds=0.0, cameras=(CAMERA,), render=render)
    sim = TabletopSim(scene_from_tabletop_state(state), config)
    try:
        return sim.render(CAMERA)
    finally:
        sim.close()


def encode_png(pixels: NDArray[np.uint8]) -> bytes:
    """PNG bytes of an RGB array, with no metadata (no time stamps), so equal pixels give equal bytes."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.fromarray(pixels, mode="RGB").save(buffer, format="PNG", compress_level=6)
    return buffer.getvalue()


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def visual_states(episodes: Sequence[DecisionEpisode]) -> dict[str, TabletopState]:
    """The state of every anchor that hosts a visual episode, in anchor-id order.

    Raises:
        DatasetError: two visual episodes of one anchor show different states.
    """
    states: dict[str, TabletopState] = {}
    for ep in episodes:
        if not ep.visual:
            continue
        known = states.setdefault(ep.anchor_id, ep.state)
        if known != ep.state:
            raise DatasetError(f"anchor {ep.anchor_id!r}: its visual episodes show different states; one image each")
    return dict(sorted(states.items()))


def image_path(anchor_id: str) -> str:
    """The image's path relative to the dataset directory (POSIX separators)."""
    return f"{IMAGE_DIR}/{_SAFE_NAME.sub('_', anchor_id)}.png"


def attach_images(
    episodes: Sequence[DecisionEpisode],
    out: Path,
    *,
    size: int = IMAGE_SIZE,
    progress: Callable[[int, int], Any] | None = None,
) -> list[DecisionEpisode]:
    """Render one image per anchor of the visual subset into `out/images/` and name it in the visual episodes.

    Returns the episodes with `image` and `image_sha256` set on the visual ones (others unchanged).

    Raises:
        DatasetError: no visual episodes, or two anchor ids map to one file name.
        MissingDependencyError: mujoco is not installed.
    """
    states = visual_states(episodes)
    if not states:
        raise DatasetError("no visual episodes to render images for; raise visual_families above 0")
    paths = {anchor_id: image_path(anchor_id) for anchor_id in states}
    if len(set(paths.values())) != len(paths):
        raise DatasetError("two anchor ids map to the same image file name; use ids of letters, digits, - and _")
    (Path(out) / IMAGE_DIR).mkdir(parents=True, exist_ok=True)
    digests: dict[str, str] = {}
    for anchor_id, state in states.items():
        data = encode_png(render_state(state, size))
        (Path(out) / paths[anchor_id]).write_bytes(data)
        digests[anchor_id] = sha256_hex(data)
        if progress:
            progress(1, len(states))
    return [
        ep.model_copy(update={"image": paths[ep.anchor_id], "image_sha256": digests[ep.anchor_id]}) if ep.visual else ep
        for ep in episodes
    ]


def image_problem(episode: DecisionEpisode) -> str | None:
    """Why the episode's image reference is malformed, or None (a consistency check of loaded datasets)."""
    if (episode.image is None) != (episode.image_sha256 is None):
        return f"episode {episode.episode_id}: image and image_sha256 come together"
    if episode.image is None:
        return None
    path = PurePosixPath(episode.image)
    if path.is_absolute() or ".." in path.parts or path.suffix != ".png" or "\\" in episode.image:
        return f"episode {episode.episode_id}: image must be a relative .png path in the dataset, got {episode.image!r}"
    return None


def read_image(episode: DecisionEpisode, root: Path) -> bytes:
    """The PNG bytes of the episode's image under the dataset directory `root`, checked against its sha256.

    Raises:
        DatasetError: the episode has no image, or the file is missing or differs from its sha256.
    """
    if episode.image is None or episode.image_sha256 is None:
        raise DatasetError(
            f"episode {episode.episode_id} has no image; generate the dataset with "
            "`heedful generate decisions --images --out DIR` and run with --dataset DIR"
        )
    problem = image_problem(episode)
    if problem:
        raise DatasetError(problem)
    return read_png(Path(root), episode.image, episode.image_sha256)


def read_png(root: Path, image: str, sha256: str) -> bytes:
    """The bytes of `root/image`, checked against `sha256`.

    Raises:
        DatasetError: the file is missing, unreadable, or differs from its sha256.
    """
    file = Path(root) / image
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise DatasetError(f"cannot read the image {file}: {exc.strerror}; is --dataset the right directory?") from None
    if sha256_hex(data) != sha256:
        raise DatasetError(
            f"{file} does not match the image_sha256 of its episodes: the file changed after generation; "
            "regenerate the dataset with --images"
        )
    return data


def check_images(episodes: Sequence[DecisionEpisode], root: Path) -> None:
    """Read every distinct image once, so a run fails before it starts rather than in every episode.

    Raises:
        DatasetError: as `read_image`.
    """
    checked: set[tuple[str | None, str | None]] = set()
    for ep in episodes:
        if (ep.image, ep.image_sha256) not in checked:
            read_image(ep, root)
            checked.add((ep.image, ep.image_sha256))
