"""Offscreen rendering tuned for CPUs (no shadows, no reflections, no multisampling unless configured), in OpenGL
contexts shared by the renderers of one process.

An OpenGL context is costly to make (an EGL context on an NVIDIA device takes time and GPU memory), and a trial
used to make one for its renderer and drop it at its end; K trials in lockstep held K at once. Here the contexts
of a process are pooled (`GLContextPool`): a renderer draws in a context that no other thread is drawing in at the
moment it is made, or in a new one when all are busy, and a context outlives its renderers, so the next trials,
of this batch or a later one, draw in it again. In a run's worker the pool holds one context whatever the batch:
the episodes of a lockstep batch take turns at the simulator and its renderer (`heedful.runner.lockstep`).

A context is current in one thread at a time: a renderer makes its context current only while it builds, draws or
frees its model's assets (`mujoco.MjrContext`), holding the context's lock, and releases it afterwards, so the
threads of a lockstep batch or of a threaded run can use one context in turn. Each renderer keeps its own
`MjrContext` (the model's meshes and textures, its offscreen framebuffer), which it binds before every drawing,
so the pixels are those of a renderer with a context of its own (`mujoco.Renderer`; tested).
"""

from __future__ import annotations

import collections
import contextlib
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from heedful.sims.gl_devices import note_renderer
from heedful.sims.tabletop.config import RenderConfig
from heedful.sims.tabletop.deps import require_mujoco


@dataclass(eq=False)
class _SharedContext:
    """One OpenGL context of the pool, the lock a thread holds while it is current there, and its renderers."""

    gl: Any
    size: tuple[int, int]
    lock: threading.Lock = field(default_factory=threading.Lock)
    renderers: int = 0


class GLContextPool:
    """The OpenGL contexts of this process (see the module docstring), made as the renderers need them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._contexts: list[_SharedContext] = []
        self.made = 0

    def take(self, width: int, height: int) -> _SharedContext:
        """A context for a new renderer of `width` x `height`: one that no thread is drawing in now, else a new one."""
        with self._lock:
            self._free_orphans()
            for context in self._contexts:
                if context.size == (width, height) and not context.lock.locked():
                    context.renderers += 1
                    return context
            context = _SharedContext(_new_gl_context(width, height), (width, height), renderers=1)
            self._contexts.append(context)
            self.made += 1
            return context

    def give_back(self, context: _SharedContext) -> None:
        """A renderer of `context` closed; the context stays for the next renderers."""
        with self._lock:
            context.renderers -= 1

    def _free_orphans(self) -> None:
        # Under the pool's lock: the assets of renderers dropped without close (see PooledRenderer.__del__).
        while _ORPHANS:
            context, assets = _ORPHANS.popleft()
            if context not in self._contexts:  # another process's (before a fork): not this one's to free
                continue
            if assets is not None:
                with current(context):
                    assets.free()
            context.renderers -= 1

    @property
    def renderers(self) -> int:
        """Renderers drawing in the pool's contexts now (those dropped without close count until the next `take`)."""
        with self._lock:
            return sum(c.renderers for c in self._contexts)


@contextlib.contextmanager
def current(context: _SharedContext) -> Iterator[None]:
    """`context` current in this thread (and no other) while the block runs; the thread's earlier context (none, in
    a run) is current again afterwards."""
    with context.lock, contextlib.nullcontext() if context.gl is None else context.gl.as_current():
        yield


_ORPHANS: collections.deque[tuple[_SharedContext, Any]] = collections.deque()
"""Renderers dropped without close: their context and model assets, freed by the pool's next `take`."""

_POOLS: dict[int, GLContextPool] = {}
_POOLS_LOCK = threading.Lock()


def context_pool() -> GLContextPool:
    """This process's pool (a forked child gets its own: its parent's contexts are not its to use)."""
    with _POOLS_LOCK:
        return _POOLS.setdefault(os.getpid(), GLContextPool())


def _new_gl_context(width: int, height: int) -> Any:
    """A context of the platform MUJOCO_GL names, as `mujoco.Renderer` makes one (current in no thread); None where
    there is none (a platform that renders without one)."""
    require_mujoco()
    from mujoco.rendering.classic import gl_context  # type: ignore[import-untyped]

    return None if gl_context.GLContext is None else gl_context.GLContext(width, height)


class PooledRenderer:
    """A `mujoco.Renderer` (RGB only) for `model` that draws in a context of the process's pool.

    Raises:
        ValueError: the image is larger than the model's offscreen framebuffer (as `mujoco.Renderer`).
    """

    def __init__(self, model: Any, render: RenderConfig, pool: GLContextPool | None = None) -> None:
        mj = require_mujoco()
        self._mj, self._model = mj, model
        self._width, self._height = render.width, render.height
        if self._width > model.vis.global_.offwidth or self._height > model.vis.global_.offheight:
            raise ValueError(
                f"image {self._width}x{self._height} > the model's offscreen framebuffer "
                f"{model.vis.global_.offwidth}x{model.vis.global_.offheight}"
            )
        self.scene = mj.MjvScene(model=model, maxgeom=10000)
        self._option = mj.MjvOption()
        self._rect = mj.MjrRect(0, 0, self._width, self._height)
        self._pool = pool if pool is not None else context_pool()
        self._context: _SharedContext | None = self._pool.take(self._width, self._height)
        self._mjr: Any = None
        with self._current():
            self._mjr = mj.MjrContext(model, mj.mjtFontScale.mjFONTSCALE_150.value)
            mj.mjr_setBuffer(mj.mjtFramebuffer.mjFB_OFFSCREEN.value, self._mjr)
            self._mjr.readDepthMap = mj.mjtDepthMap.mjDEPTH_ZEROFAR  # as mujoco.Renderer sets it
            note_renderer(self._context.gl)  # the process's first renderer reads GL_VENDOR / GL_RENDERER

    def _current(self) -> contextlib.AbstractContextManager[None]:
        if self._context is None:
            raise RuntimeError("render cannot be called after close")
        return current(self._context)

    def update_scene(self, data: Any, camera: str) -> None:
        """Put `data` in the scene as the named camera sees it (no OpenGL: any thread, any time)."""
        mj = self._mj
        camera_id = mj.mj_name2id(self._model, mj.mjtObj.mjOBJ_CAMERA.value, camera)
        if camera_id == -1:
            raise ValueError(f'The camera "{camera}" does not exist.')
        view = mj.MjvCamera()
        view.fixedcamid = camera_id
        view.type = mj.mjtCamera.mjCAMERA_FIXED
        mj.mjv_updateScene(self._model, data, self._option, None, view, mj.mjtCatBit.mjCAT_ALL.value, self.scene)

    def render(self) -> NDArray[np.uint8]:
        """The scene as an upright (H, W, 3) RGB image."""
        mj = self._mj
        pixels = np.empty((self._height, self._width, 3), dtype=np.uint8)
        with self._current():
            # the framebuffer binding is the context's, which other renderers' drawings changed since
            mj.mjr_setBuffer(mj.mjtFramebuffer.mjFB_OFFSCREEN.value, self._mjr)
            mj.mjr_render(self._rect, self.scene, self._mjr)
            mj.mjr_readPixels(pixels, None, self._rect, self._mjr)
        # OpenGL's rows run bottom-up; the copy keeps the image C-contiguous (torch.from_numpy refuses a flipped view)
        return np.flipud(pixels).copy() if self._context is not None and self._context.gl is not None else pixels

    def close(self) -> None:
        """Free this model's assets in the context and hand the context back to the pool (idempotent)."""
        if self._context is None:
            return
        if self._mjr is not None:
            with self._current():
                self._mjr.free()
            self._mjr = None
        self._pool.give_back(self._context)
        self._context = None

    def __del__(self) -> None:
        # No lock and no OpenGL here: the collector may run this in any thread, even one holding the context's lock.
        if self._context is not None:
            _ORPHANS.append((self._context, self._mjr))
            self._context, self._mjr = None, None


def make_renderer(model: Any, render: RenderConfig) -> PooledRenderer:
    """A renderer for `model` with the scene flags of `render`, in a context of this process's pool.

    Multisampling is fixed when the model is compiled (`vis.quality.offsamples`, set by the MJCF builder);
    shadows and reflections are switched here, per renderer.
    """
    mj = require_mujoco()
    renderer = PooledRenderer(model, render)
    flags = renderer.scene.flags
    flags[mj.mjtRndFlag.mjRND_SHADOW] = int(render.shadows)
    flags[mj.mjtRndFlag.mjRND_REFLECTION] = int(render.reflections)
    flags[mj.mjtRndFlag.mjRND_SKYBOX] = 0
    return renderer
