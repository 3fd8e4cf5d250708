"""Scene specs: validation with typed errors, stacking heights, footprints, conversions, seeded sampling."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from pydantic import ValidationError

from heedful.errors import ConfigError, GenerationError
from heedful.sims.tabletop.scenes import free_point, sample_scene
from heedful.sims.tabletop.spec import (
    ObjectSpec,
    SceneSpec,
    default_scene,
    footprint_gap,
    resting_z,
    scene_from_tabletop_state,
    top_z,
    validate_scene,
)
from heedful.world.objects import TableObject, TabletopState


def cube(name: str, x: float, y: float, **kw: object) -> ObjectSpec:
    return ObjectSpec(name=name, shape="cube", color="red", x=x, y=y, **kw)  # type: ignore[arg-type]


def test_default_scene_is_valid() -> None:
    validate_scene(default_scene())


def test_overlap_off_table_and_bad_supports_raise_config_errors_naming_objects() -> None:
    with pytest.raises(ConfigError, match="'a' and 'b' overlap"):
        validate_scene(SceneSpec(objects=(cube("a", 0.0, 0.5), cube("b", 0.03, 0.5))))
    with pytest.raises(ConfigError, match=r"'far' .* off the table"):
        validate_scene(SceneSpec(objects=(cube("far", 1.0, 0.5),)))
    ball = ObjectSpec(name="ball", shape="sphere", color="blue", x=0.0, y=0.5)
    with pytest.raises(ConfigError, match="no flat top"):
        validate_scene(SceneSpec(objects=(ball, cube("top", 0.0, 0.5, on="ball"))))
    with pytest.raises(ConfigError, match="centered on its support"):
        validate_scene(SceneSpec(objects=(cube("a", 0.0, 0.5), cube("b", 0.03, 0.5, on="a"))))
    with pytest.raises(ConfigError, match="no object named 'ghost'"):
        validate_scene(SceneSpec(objects=(cube("a", 0.0, 0.5, on="ghost"),)))
    with pytest.raises(ConfigError, match="at most 2"):
        validate_scene(SceneSpec(objects=(cube("a", -0.2, 0.5), cube("b", 0, 0.5), cube("c", 0.2, 0.5))), max_objects=2)


def test_malformed_objects_are_rejected_by_the_model() -> None:
    with pytest.raises(ValidationError):
        ObjectSpec(name="c", shape="cube", color="red", x=0, y=0.5, dims=(0.02, 0.02))
    with pytest.raises(ValidationError):
        ObjectSpec(name="bad name", shape="cube", color="red", x=0, y=0.5)
    with pytest.raises(ValidationError):
        ObjectSpec(name="c", shape="pyramid", color="red", x=0, y=0.5)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        ObjectSpec(name="c", shape="cube", color="red", x=float("nan"), y=0.5)
    with pytest.raises(ValidationError):
        SceneSpec(objects=(cube("a", 0, 0.5), cube("a", 0.2, 0.5)))


def test_stack_heights_add_up() -> None:
    base = ObjectSpec(name="base", shape="cylinder", color="green", size="large", x=0, y=0.5)
    top = cube("top", 0, 0.5, on="base")
    scene = SceneSpec(objects=(base, top))
    assert resting_z(scene, base) == pytest.approx(0.05)
    assert resting_z(scene, top) == pytest.approx(0.10 + 0.02)
    assert top_z(scene, top) == pytest.approx(0.14)
    bowl = ObjectSpec(name="bowl", shape="bowl", color="yellow", x=0.2, y=0.5)
    assert resting_z(scene, bowl) == 0.0 and bowl.height == pytest.approx(0.04)


def test_footprint_gap_is_exact_for_axis_aligned_boxes_and_sees_rotation() -> None:
    a, b = cube("a", 0.0, 0.5), cube("b", 0.1, 0.5)
    assert footprint_gap(a, b) == pytest.approx(0.06)
    turned = cube("b", 0.05, 0.5, yaw_deg=45)
    assert footprint_gap(a, turned) < 0.05 - 0.02 - 0.02 + 1e-9  # the corner reaches closer than a face
    assert footprint_gap(a, cube("c", 0.03, 0.5)) < 0


def test_scene_from_decisions_state_keeps_every_attribute() -> None:
    state = TabletopState(
        objects=(
            TableObject(name="o1", color="red", shape="cube", size="small", x=-0.1, y=0.4, yaw_deg=10),
            TableObject(name="o2", color="green", shape="bowl", size="large", x=0.15, y=0.6),
        )
    )
    scene = scene_from_tabletop_state(state)
    assert [(o.name, o.color, o.shape, o.size, o.x, o.y, o.yaw_deg) for o in scene.objects] == [
        ("o1", "red", "cube", "small", -0.1, 0.4, 10),
        ("o2", "green", "bowl", "large", 0.15, 0.6, 0.0),
    ]


def test_digest_is_stable_and_content_addressed() -> None:
    assert default_scene().digest() == default_scene().digest()
    moved = SceneSpec(objects=(cube("a", 0.0, 0.5),))
    assert moved.digest() != SceneSpec(objects=(cube("a", 0.0, 0.51),)).digest()


def test_sampled_scenes_are_seeded_valid_and_bounded() -> None:
    shapes = [("cube", "small"), ("bar", "large"), ("bowl", "small"), ("sphere", "large")]
    one = sample_scene(np.random.default_rng(7), shapes)  # type: ignore[arg-type]
    two = sample_scene(np.random.default_rng(7), shapes)  # type: ignore[arg-type]
    assert one == two
    validate_scene(one)
    x, y = free_point(np.random.default_rng(1), one, 0.05)
    assert all(np.hypot(x - o.x, y - o.y) - o.footprint_radius >= 0.05 for o in one.objects)
    with pytest.raises(GenerationError, match="could not place"):
        sample_scene(np.random.default_rng(0), [("bowl", "large")] * 30)


def test_importing_the_package_loads_neither_mujoco_nor_gymnasium() -> None:
    """`import heedful` registers the Gymnasium ids only once gymnasium is imported, by entry-point string."""
    code = (
        "import sys, heedful, heedful.sims.tabletop as t; t.SceneSpec; "
        "print('mujoco' in sys.modules, 'gymnasium' in sys.modules); "
        "import gymnasium as gym; print('heedful/Tabletop-v0' in gym.registry, 'mujoco' in sys.modules, "
        "'heedful.sims.tabletop.env' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False", "True", "False", "False"]
