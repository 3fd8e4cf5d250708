"""Rendered decision states: one image per visual anchor, deterministic, and matching the structured state."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from heedful.errors import DatasetError
from heedful.suites.decisions.dataset import schema_text
from heedful.suites.decisions.images import CAMERA, IMAGE_SIZE, encode_png, read_image, render_state
from heedful.suites.decisions.model import DecisionEpisode
from heedful.suites.decisions.suite import SUITE
from heedful.world.objects import COLORS, TabletopState

pytestmark = pytest.mark.render

CONFIG = ["object_anchors=4", "action_anchors=4", "atomic_families=16", "multi_families=2", "visual_families=10"]
TABLE_RGB = (0.62, 0.52, 0.40)


@pytest.fixture(scope="module")
def image_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from heedful.cli import main

    out = tmp_path_factory.mktemp("decisions-images") / "data"
    sets = [item for c in CONFIG for item in ("--set", c)]
    assert main(["generate", "decisions", "--seed", "5", "--out", str(out), "--images", "--no-progress", *sets]) == 0
    return out


def test_every_visual_anchor_has_one_image_named_by_its_visual_episodes(image_dataset: Path) -> None:
    episodes = SUITE.load_dataset(image_dataset)
    visual = [ep for ep in episodes if ep.visual]
    anchors = {ep.anchor_id for ep in visual}
    assert {a for a in anchors if a.startswith("obj")} == {f"obj-0{i}" for i in range(1, 5)}
    assert sorted(p.name for p in (image_dataset / "images").iterdir()) == sorted(f"{a}.png" for a in anchors)
    for ep in episodes:
        if ep.visual:
            assert ep.image == f"images/{ep.anchor_id}.png"
            assert read_image(ep, image_dataset).startswith(b"\x89PNG")  # also checks the sha256
        else:
            assert ep.image is None and ep.image_sha256 is None
    summary = json.loads((image_dataset / "dataset.json").read_text())
    assert summary["counts"]["images"] == len(anchors)


def test_lines_with_images_follow_the_shipped_schema(image_dataset: Path) -> None:
    import jsonschema

    schema = json.loads(schema_text())
    lines = (image_dataset / "episodes.jsonl").read_text().splitlines()
    with_image = [json.loads(line) for line in lines if '"image":' in line]
    assert with_image and all("image_sha256" in line for line in with_image)
    for line in with_image[:20]:
        jsonschema.validate(line, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**with_image[0], "image_sha256": "not-a-sha"}, schema)


def test_images_are_byte_identical_across_generations_and_processes(image_dataset: Path, tmp_path: Path) -> None:
    episodes = [ep for ep in SUITE.load_dataset(image_dataset) if ep.visual]
    state = episodes[0].state
    here = encode_png(render_state(state))
    assert here == encode_png(render_state(state))
    # a fresh interpreter (its own OpenGL context) renders the same bytes
    code = (
        "import sys; from heedful.world.objects import TabletopState;"
        "from heedful.suites.decisions.images import encode_png, render_state;"
        "sys.stdout.buffer.write(encode_png(render_state(TabletopState.model_validate_json(sys.stdin.read()))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], input=state.model_dump_json().encode(), capture_output=True, check=True
    )
    assert done.stdout == here
    assert here == (image_dataset / episodes[0].image).read_bytes()  # type: ignore[operator]


def _camera(state: TabletopState) -> tuple[np.ndarray, np.ndarray, float]:
    """Position, rotation (columns: camera x, y, z in the world) and vertical field of view of agentview."""
    from heedful.sims.tabletop.config import SimConfig
    from heedful.sims.tabletop.sim import TabletopSim
    from heedful.sims.tabletop.spec import scene_from_tabletop_state

    sim = TabletopSim(scene_from_tabletop_state(state), SimConfig(settle_seconds=0.0))
    cam = sim._mj.mj_name2id(sim.model, sim._mj.mjtObj.mjOBJ_CAMERA, CAMERA)
    pos, rot = sim.data.cam_xpos[cam].copy(), sim.data.cam_xmat[cam].reshape(3, 3).copy()
    fovy = float(sim.model.cam_fovy[cam])
    sim.close()
    return pos, rot, fovy


def _pixel(point: np.ndarray, camera: tuple[np.ndarray, np.ndarray, float], size: int) -> tuple[int, int]:
    """Row and column of a world point in the image (pinhole; the camera looks along its -z axis)."""
    pos, rot, fovy = camera
    x, y, z = rot.T @ (point - pos)
    focal = (size / 2) / np.tan(np.radians(fovy) / 2)
    return round(size / 2 - focal * y / -z), round(size / 2 + focal * x / -z)


def _colour_name(rgb: np.ndarray) -> str:
    """The palette colour (or the table) whose chromaticity is nearest to `rgb`: shading changes brightness only."""
    from heedful.sims.tabletop.spec import RGBA

    palette = {name: np.array(RGBA[name][:3]) for name in COLORS} | {"table": np.array(TABLE_RGB)}
    chroma = rgb / max(float(rgb.sum()), 1e-6)
    return min(palette, key=lambda name: float(np.linalg.norm(chroma - palette[name] / palette[name].sum())))


def _check_colours(episode: DecisionEpisode, image_dir: Path) -> int:
    from PIL import Image

    from heedful.sims.tabletop.spec import resting_z, scene_from_tabletop_state

    pixels = np.asarray(Image.open(image_dir / str(episode.image)).convert("RGB"), dtype=float) / 255.0
    assert pixels.shape == (IMAGE_SIZE, IMAGE_SIZE, 3)
    scene = scene_from_tabletop_state(episode.state)
    camera = _camera(episode.state)
    for obj in scene.objects:
        center = obj.height / 2 if obj.shape != "bowl" else 0.003
        row, col = _pixel(np.array([obj.x, obj.y, resting_z(scene, obj) + center]), camera, IMAGE_SIZE)
        patch = pixels[row - 1 : row + 2, col - 1 : col + 2].reshape(-1, 3)
        seen = _colour_name(np.median(patch, axis=0))
        assert seen == obj.color, f"{episode.anchor_id}: {obj.size} {obj.color} {obj.shape} looks {seen} at {row, col}"
    return len(scene.objects)


def test_each_object_shows_its_colour_where_its_position_projects(image_dataset: Path) -> None:
    firsts = {ep.anchor_id: ep for ep in reversed(SUITE.load_dataset(image_dataset)) if ep.visual}
    checked = sum(_check_colours(ep, image_dataset) for ep in firsts.values())
    assert checked >= 3 * len(firsts)


def test_left_objects_appear_left_and_far_objects_higher_in_the_image(image_dataset: Path) -> None:
    episode = next(ep for ep in SUITE.load_dataset(image_dataset) if ep.visual and ep.anchor_kind == "object")
    camera = _camera(episode.state)
    objects = episode.state.objects
    cells = {o.name: _pixel(np.array([o.x, o.y, 0.0]), camera, IMAGE_SIZE) for o in objects}
    # Table points: the row depends on y alone (far = higher up); the column has the sign of x (robot's left =
    # image left), though perspective may reorder two objects of nearly equal x at different depths.
    by_y = sorted(objects, key=lambda o: o.y)
    assert [cells[o.name][0] for o in by_y] == sorted((cells[o.name][0] for o in by_y), reverse=True)
    for o in objects:
        if abs(o.x) > 0.01:
            assert (cells[o.name][1] < IMAGE_SIZE / 2) == (o.x < 0), o


def test_a_changed_or_escaping_image_is_a_dataset_error(image_dataset: Path, tmp_path: Path) -> None:
    episode = next(ep for ep in SUITE.load_dataset(image_dataset) if ep.visual)
    (tmp_path / "images").mkdir()
    (tmp_path / str(episode.image)).write_bytes(b"\x89PNG not the rendered one")
    with pytest.raises(DatasetError, match="does not match"):
        read_image(episode, tmp_path)
    line = json.loads(episode.model_dump_json())
    line["image"] = "../secrets.png"
    (tmp_path / "episodes.jsonl").write_text(json.dumps(line) + "\n")
    with pytest.raises(DatasetError, match=r"relative \.png path"):
        SUITE.load_dataset(tmp_path)
