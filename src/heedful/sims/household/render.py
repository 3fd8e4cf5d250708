"""Top-down pictures of a house (PNG) and animation frames for replays, drawn with Pillow.

Pillow is imported lazily, with an install hint when it is missing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from heedful.errors import MissingDependencyError
from heedful.sims.household.model import HouseSpec
from heedful.sims.household.vision import FOV_DEG, RANGE_M, heading_yaw
from heedful.sims.household.vocab import COLOUR_RGB, OBJECT_CATEGORIES

PX_PER_M = 48
WALL_RGB = (60, 60, 60)
FURNITURE_RGB = (160, 130, 100)
AGENT_RGB = (220, 40, 40)
HUMAN_RGB = (40, 120, 220)
OBJECT_RGB: dict[str, tuple[int, int, int]] = dict(
    zip(
        OBJECT_CATEGORIES,
        [
            (200, 120, 0),
            (120, 60, 160),
            (0, 150, 150),
            (230, 80, 140),
            (90, 90, 0),
            (0, 120, 60),
            (140, 70, 30),
            (255, 140, 200),
        ],
        strict=True,
    )
)


def _pil() -> Any:
    try:
        from PIL import Image, ImageDraw
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise MissingDependencyError("pictures and replays need Pillow; install it with `pip install Pillow`") from exc
    return Image, ImageDraw


@dataclass(frozen=True)
class Scene:
    """What one frame shows on top of the house."""

    objects: Sequence[tuple[str, float, float]] = ()
    agent: tuple[float, float, int] | None = None
    human: tuple[float, float] | None = None
    human_goal: tuple[float, float] | None = None
    trail: Sequence[tuple[float, float]] = ()
    human_trail: Sequence[tuple[float, float]] = ()
    caption: str = ""
    held: str | None = None
    highlight: Sequence[tuple[float, float]] = field(default_factory=tuple)


class Canvas:
    """Maps house meters to pixels (y up in the house, down in the image)."""

    def __init__(self, house: HouseSpec, scale: int = PX_PER_M, caption_px: int = 0) -> None:
        self.house = house
        self.scale = scale
        width, depth = house.extent
        self.size = (math.ceil(width * scale), math.ceil(depth * scale) + caption_px)
        self.depth_px = math.ceil(depth * scale)

    def px(self, x: float, y: float) -> tuple[float, float]:
        return (x * self.scale, self.depth_px - y * self.scale)

    def box(self, x0: float, y0: float, x1: float, y1: float) -> tuple[float, float, float, float]:
        a, b = self.px(x0, y1), self.px(x1, y0)
        return (a[0], a[1], b[0], b[1])


def draw_house(canvas: Canvas, draw: Any, labels: bool = True) -> None:
    """Floors in wall colour, walls, doors, furniture and room labels."""
    house = canvas.house
    half = house.wall_thickness / 2
    for room in house.rooms:
        r = room.rect
        draw.rectangle(canvas.box(r.x0 - half, r.y0 - half, r.x1 + half, r.y1 + half), fill=WALL_RGB)
    for room in house.rooms:
        r = room.rect
        draw.rectangle(
            canvas.box(r.x0 + half, r.y0 + half, r.x1 - half, r.y1 - half), fill=COLOUR_RGB[room.wall_colour]
        )
    for door in house.doors:
        d = door.rect
        draw.rectangle(canvas.box(d.x0, d.y0, d.x1, d.y1), fill=(235, 235, 235))
    for rec in house.receptacles:
        q = rec.rect
        draw.rectangle(canvas.box(q.x0, q.y0, q.x1, q.y1), fill=FURNITURE_RGB, outline=(90, 70, 50))
        if labels:
            draw.text(canvas.px(q.x0 + 0.03, q.y1 - 0.02), rec.category, fill=(255, 255, 255))
    if labels:
        for room in house.rooms:
            r = room.rect
            text = f"Room {room.index}: {room.function} ({room.wall_colour})"
            draw.text(canvas.px(r.x0 + 0.15, r.y0 + 0.35), text, fill=(0, 0, 0))


def draw_scene(canvas: Canvas, draw: Any, scene: Scene) -> None:
    """Objects, trails, the human and the agent with its field of view."""
    s = canvas.scale
    if len(scene.human_trail) > 1:
        draw.line([canvas.px(x, y) for x, y in scene.human_trail], fill=(120, 170, 240), width=2)
    if len(scene.trail) > 1:
        draw.line([canvas.px(x, y) for x, y in scene.trail], fill=(240, 140, 140), width=2)
    for category, x, y in scene.objects:
        cx, cy = canvas.px(x, y)
        r = 0.09 * s
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=OBJECT_RGB.get(category, (0, 0, 0)), outline=(0, 0, 0))
        draw.text((cx + r, cy - 2 * r), category, fill=(0, 0, 0))
    if scene.human_goal is not None:
        gx, gy = canvas.px(*scene.human_goal)
        draw.line((gx - 6, gy - 6, gx + 6, gy + 6), fill=HUMAN_RGB, width=2)
        draw.line((gx - 6, gy + 6, gx + 6, gy - 6), fill=HUMAN_RGB, width=2)
    if scene.human is not None:
        hx, hy = canvas.px(*scene.human)
        r = 0.18 * s
        draw.ellipse((hx - r, hy - r, hx + r, hy + r), fill=HUMAN_RGB, outline=(0, 0, 0))
    if scene.agent is not None:
        _draw_agent(canvas, draw, *scene.agent)
    if scene.caption:
        draw.rectangle((0, canvas.depth_px, canvas.size[0], canvas.size[1]), fill=(255, 255, 255))
        draw.text((6, canvas.depth_px + 4), scene.caption, fill=(0, 0, 0))


def _draw_agent(canvas: Canvas, draw: Any, x: float, y: float, heading: int) -> None:
    yaw = heading_yaw(heading)
    half = math.radians(FOV_DEG / 2)
    cone = [canvas.px(x, y)]
    for k in range(9):
        a = yaw - half + 2 * half * k / 8
        cone.append(canvas.px(x + RANGE_M * math.cos(a), y + RANGE_M * math.sin(a)))
    draw.line([*cone, cone[0]], fill=(230, 90, 90), width=1)
    tip = canvas.px(x + 0.3 * math.cos(yaw), y + 0.3 * math.sin(yaw))
    left = canvas.px(x + 0.2 * math.cos(yaw + 2.4), y + 0.2 * math.sin(yaw + 2.4))
    right = canvas.px(x + 0.2 * math.cos(yaw - 2.4), y + 0.2 * math.sin(yaw - 2.4))
    draw.polygon([tip, left, right], fill=AGENT_RGB, outline=(0, 0, 0))


def house_image(house: HouseSpec, scene: Scene | None = None, scale: int = PX_PER_M, caption_px: int = 0) -> Any:
    """A Pillow image of the house, with the house's own objects unless `scene` says otherwise."""
    image_mod, draw_mod = _pil()
    canvas = Canvas(house, scale, caption_px)
    image = image_mod.new("RGB", canvas.size, (255, 255, 255))
    draw = draw_mod.Draw(image)
    draw_house(canvas, draw)
    if scene is None:
        scene = Scene(objects=[(o.category, o.x, o.y) for o in house.objects])
    draw_scene(canvas, draw, scene)
    return image


def save_house_png(house: HouseSpec, out: Path, scene: Scene | None = None, scale: int = PX_PER_M) -> Path:
    """Write a top-down PNG of `house` to `out`."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    house_image(house, scene, scale).save(out, format="PNG")
    return out


GIF_FRAME_MS = 80


def save_gif(frames: Sequence[Any], out: Path, frame_ms: int = GIF_FRAME_MS) -> Path:
    """Write Pillow frames as an animated GIF (looping)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    first, *rest = frames
    first.save(out, format="GIF", save_all=True, append_images=rest, duration=frame_ms, loop=0, optimize=False)
    return out
