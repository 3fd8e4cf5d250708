"""Which GPU each worker renders on, and which OpenGL renderer a run's images came from.

MuJoCo's EGL platform (MUJOCO_GL=egl) opens one EGL display per process, on the device that MUJOCO_EGL_DEVICE_ID
names when the process makes its first context, and keeps it for the life of the process (`mujoco.egl`: the
variable indexes the EGL devices the driver lists, put in CUDA order where the driver maps EGL devices to CUDA
devices, CUDA_VISIBLE_DEVICES honoured; unset, the first device that initializes). A run given `--egl-devices
0,1,2,3` (or HEEDFUL_EGL_DEVICES=0,1,2,3) sets the variable in each worker before it renders: worker i of the
process pool, or Ray actor i, renders on device i mod N.

The first renderer a process builds reads what its context reports (`note_renderer`): the platform, the device
asked for, and GL_VENDOR / GL_RENDERER / GL_VERSION. A run's manifest lists those of its workers (`renderers`), so
a run that fell back to a software renderer (Mesa llvmpipe) says so. This module imports no OpenGL until a
context exists or devices are checked: the runner imports it for every suite.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from heedful.errors import RenderDeviceError

EGL_DEVICES_ENV = "HEEDFUL_EGL_DEVICES"
"""Comma-separated EGL device ids for runs not given `--egl-devices` (the Python API, sweeps, arms)."""
DEVICE_ID_ENV = "MUJOCO_EGL_DEVICE_ID"
"""What `mujoco.egl` reads when a process opens its EGL display."""

_LOCK = threading.Lock()
_SEEN: dict[str, Any] | None = None
_BUILT = 0


def parse_egl_devices(value: str | Sequence[int] | None) -> tuple[int, ...]:
    """Device ids from `--egl-devices` text ("0,1,3"), a sequence, or (None) HEEDFUL_EGL_DEVICES; () when none.

    Raises:
        RenderDeviceError: an id that is not a non-negative integer, or an empty list.
    """
    if value is None:
        value = os.environ.get(EGL_DEVICES_ENV) or None
        if value is None:
            return ()
    parts = [p.strip() for p in value.split(",")] if isinstance(value, str) else list(value)
    try:
        devices = tuple(int(p) for p in parts)
    except (TypeError, ValueError):
        raise RenderDeviceError(
            f"--egl-devices takes comma-separated EGL device ids such as 0,1,2,3, got {value!r}"
        ) from None
    if not devices or any(d < 0 for d in devices):
        raise RenderDeviceError(f"--egl-devices takes non-negative EGL device ids such as 0,1,2,3, got {value!r}")
    return devices


def egl_device_count() -> int:
    """How many EGL devices this machine's driver lists (what MUJOCO_EGL_DEVICE_ID may index).

    Raises:
        RenderDeviceError: MUJOCO_GL is not egl, or EGL cannot be loaded here.
    """
    # heedful's default without a display, as heedful.sims.tabletop.deps sets it
    platform = os.environ.get("MUJOCO_GL") or ("egl" if "DISPLAY" not in os.environ else None)
    if platform != "egl":
        raise RenderDeviceError(
            f"--egl-devices chooses EGL devices, but MUJOCO_GL is {platform!r}: set MUJOCO_GL=egl, or drop "
            "--egl-devices (and HEEDFUL_EGL_DEVICES)"
        )
    try:
        from mujoco.egl import egl_ext  # type: ignore[import-untyped]

        return len(egl_ext.eglQueryDevicesEXT())
    except Exception as exc:  # ImportError, or a driver without the device extensions
        raise RenderDeviceError(
            f"--egl-devices: EGL devices cannot be listed here ({type(exc).__name__}: {exc})"
        ) from None


def check_egl_devices(devices: Sequence[int]) -> None:
    """Refuse ids this machine has no EGL device for (checked where the workers render: this machine for the
    local backends, each Ray actor's node on Ray).

    Raises:
        RenderDeviceError: naming the missing ids and the devices there are.
    """
    if not devices:
        return
    count = egl_device_count()
    missing = sorted({d for d in devices if d >= count})
    if missing:
        there = f"devices 0-{count - 1}" if count > 1 else ("device 0" if count == 1 else "no device")
        raise RenderDeviceError(
            f"--egl-devices names EGL device{'s' if len(missing) > 1 else ''} {', '.join(map(str, missing))}, which "
            f"this machine does not have: its EGL driver lists {count} ({there}); give ids below {count}"
        )


def use_egl_device(devices: Sequence[int], worker: int) -> int | None:
    """Make this process render on `devices[worker % len(devices)]` (None and nothing changed when no devices).
    Call it before the process makes its first OpenGL context.

    Raises:
        RenderDeviceError: the device does not exist here, or this process renders on another device already.
    """
    if not devices:
        return None
    device = int(devices[worker % len(devices)])
    egl = sys.modules.get("mujoco.egl")
    opened = egl is not None and getattr(egl, "EGL_DISPLAY", None) is not None
    if opened and os.environ.get(DEVICE_ID_ENV) != str(device):
        raise RenderDeviceError(
            f"this process renders on EGL device {os.environ.get(DEVICE_ID_ENV, 'default')} already and cannot "
            f"switch to device {device} (EGL opens one display per process): run with --workers 2 or more"
        )
    check_egl_devices([device])
    os.environ[DEVICE_ID_ENV] = str(device)
    return device


class WorkerCounter:
    """Numbers a process pool's workers 0, 1, ... as they start (worker i renders on EGL device i mod N)."""

    def __init__(self, context: multiprocessing.context.BaseContext) -> None:
        self._value = context.Value("i", 0)

    def take(self) -> int:
        with self._value.get_lock():
            index = int(self._value.value)
            self._value.value = index + 1
        return index


def pool_worker_device(devices: tuple[int, ...], counter: WorkerCounter) -> None:
    """A process pool's initializer: this worker renders on its device (`use_egl_device`)."""
    use_egl_device(devices, counter.take())


def note_renderer(gl_context: Any) -> None:
    """A renderer was built in `gl_context` (None: a platform without one): the first reads what the context
    reports. Call it with the context current nowhere else."""
    global _SEEN, _BUILT
    with _LOCK:
        _BUILT += 1
        if _SEEN is None:
            _SEEN = _describe(gl_context)


def renderers_built() -> int:
    """Renderers built in this process so far."""
    return _BUILT


def renderer_since(built: int) -> dict[str, Any] | None:
    """This process's renderer (`describe`'s fields) when it built a renderer since `renderers_built()` was `built`."""
    with _LOCK:
        return dict(_SEEN) if _SEEN is not None and built < _BUILT else None


_GL_STRINGS = ("vendor", "renderer", "version")


def _describe(gl_context: Any) -> dict[str, Any]:
    platform = os.environ.get("MUJOCO_GL") or "default"
    device = os.environ.get(DEVICE_ID_ENV) if platform == "egl" else None
    info: dict[str, Any] = {"platform": platform, "egl_device": int(device) if device else None}
    if gl_context is None:
        return {**info, "vendor": None, "renderer": None, "version": None}
    from OpenGL import GL  # type: ignore[import-untyped]

    with gl_context.as_current():
        strings = {name: GL.glGetString(getattr(GL, f"GL_{name.upper()}")) for name in _GL_STRINGS}
    return {**info, **{k: v.decode() if isinstance(v, bytes) else v for k, v in strings.items()}}


def summarize(by_worker: Mapping[int, Mapping[str, Any]]) -> list[dict[str, Any]] | None:
    """The manifest's `renderers`: each distinct renderer the workers reported, with the workers that drew with it
    (None when no worker rendered)."""
    groups: dict[tuple[Any, ...], dict[str, Any]] = {}
    for worker in sorted(by_worker):
        info = dict(by_worker[worker])
        key = tuple(sorted(info.items()))
        groups.setdefault(key, {**info, "workers": []})["workers"].append(worker)
    return list(groups.values()) or None
