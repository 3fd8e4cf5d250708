"""Per-policy adapters: what a policy server is sent and how its reply becomes an action chunk.

An adapter is any class with

- `cameras`: the simulator cameras to render before each request (`agentview`, `wrist`);
- `observation(obs) -> dict`: heedful's controller observation (`image`, `wrist_image` as upright uint8
  (H, W, 3), `state` the 8-D proprioception, `prompt`, `step`) as the dict sent to the server;
- `actions(reply) -> array`: the server's reply as a (T, 7) chunk in heedful's `delta_eef` action space
  (dx, dy, dz, droll, dpitch, dyaw in [-1, 1] scaled by the simulator, gripper -1 open .. +1 closed);
- optionally `describe() -> dict` (stored in the run manifest).

Pass your own with `--adapter my_module:MyAdapter` (constructor arguments via `--agent-arg KEY=VALUE`).
An adapter signals a reply it cannot read with `AgentInterfaceError`; the remote agent then checks the
chunk's shape, dtype and finiteness itself.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from heedful.errors import AgentInterfaceError, ConfigError
from heedful.registry import suggest
from heedful.remote.wire import openpi_module

ACTION_DIM = 7


@runtime_checkable
class PolicyAdapter(Protocol):
    """Translates between heedful's controller interface and one policy's wire format."""

    cameras: tuple[str, ...]

    def observation(self, obs: dict[str, Any]) -> dict[str, Any]: ...

    def actions(self, reply: dict[str, Any]) -> Any: ...


def _size(value: int | list[int] | tuple[int, int]) -> tuple[int, int]:
    pair = [value, value] if isinstance(value, int) else list(value)
    if len(pair) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) and 16 <= v <= 2048 for v in pair):
        raise ConfigError(f"image_size must be an integer or [height, width] between 16 and 2048, got {value!r}")
    return pair[0], pair[1]


class LiberoAdapter:
    """openpi's LIBERO example format: `observation/image` and `observation/wrist_image` (uint8, 224x224x3,
    upright), `observation/state` (8-D: TCP position, tool axis-angle, finger positions) and `prompt`; the
    reply's `actions` are used as they are, so the policy must act in heedful's `delta_eef` space (a policy
    fine-tuned on heedful's demonstrations does). Keys and image size are arguments; a key set to None
    leaves that entry out (e.g. `wrist_image_key=null` for a policy without a wrist camera)."""

    name = "libero"

    def __init__(
        self,
        image_key: str | None = "observation/image",
        wrist_image_key: str | None = "observation/wrist_image",
        state_key: str | None = "observation/state",
        prompt_key: str | None = "prompt",
        action_key: str = "actions",
        image_size: int | list[int] = 224,
    ) -> None:
        self.image_key, self.wrist_image_key = image_key, wrist_image_key
        self.state_key, self.prompt_key, self.action_key = state_key, prompt_key, action_key
        self.image_size = _size(image_size)
        cams = (("agentview", image_key), ("wrist", wrist_image_key))
        self.cameras = tuple(cam for cam, key in cams if key is not None)

    def _image(self, image: NDArray[np.uint8]) -> NDArray[np.uint8]:
        height, width = self.image_size
        if image.shape[:2] == (height, width):
            return image
        tools = openpi_module("image_tools")  # openpi's own resize (aspect kept, zero padding)
        return np.asarray(tools.resize_with_pad(image, height, width), dtype=np.uint8)

    def observation(self, obs: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.image_key is not None:
            out[self.image_key] = self._image(obs["image"])
        if self.wrist_image_key is not None:
            out[self.wrist_image_key] = self._image(obs["wrist_image"])
        if self.state_key is not None:
            out[self.state_key] = np.asarray(obs["state"], dtype=np.float64)
        if self.prompt_key is not None:
            out[self.prompt_key] = obs["prompt"]
        return out

    def actions(self, reply: dict[str, Any]) -> Any:
        if self.action_key not in reply:
            raise AgentInterfaceError(
                f"the policy server's reply has no {self.action_key!r} entry (keys: {sorted(map(str, reply))}); "
                "pass --agent-arg action_key=NAME if the policy names it otherwise"
            )
        return reply[self.action_key]

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "keys": {
                "image": self.image_key,
                "wrist_image": self.wrist_image_key,
                "state": self.state_key,
                "prompt": self.prompt_key,
                "actions": self.action_key,
            },
            "image_size": list(self.image_size),
        }


BUILTIN_ADAPTERS: dict[str, type[Any]] = {"libero": LiberoAdapter}


def load_adapter(target: str, args: dict[str, Any]) -> Any:
    """Build the adapter named `target` ("libero" or "package.module:Class") with keyword `args`.

    Raises:
        ConfigError: the target cannot be imported, is no adapter, or does not take one of `args`.
    """
    if target in BUILTIN_ADAPTERS:
        cls = BUILTIN_ADAPTERS[target]
    elif ":" in target:
        module_name, _, attr = target.partition(":")
        try:
            cls = getattr(importlib.import_module(module_name), attr)
        except (ImportError, AttributeError) as exc:
            raise ConfigError(f"cannot load adapter {target!r}: {exc}; check the module:Class path") from exc
    else:
        raise ConfigError(
            f"unknown adapter {target!r}{suggest(target, BUILTIN_ADAPTERS)}; use one of "
            f"{', '.join(BUILTIN_ADAPTERS)} or a module:Class path"
        )
    params = inspect.signature(cls).parameters
    if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        for key in args:
            if key not in params:
                raise ConfigError(
                    f"the remote agent and adapter {target!r} take no argument {key!r}{suggest(key, params)}; "
                    f"the adapter takes: {', '.join(params) or 'no arguments'}"
                )
    adapter = cls(**args)
    if not isinstance(adapter, PolicyAdapter):
        raise ConfigError(f"adapter {target!r} needs `cameras`, `observation(obs)` and `actions(reply)`")
    return adapter


def action_chunk(raw: Any) -> NDArray[np.float64]:
    """`raw` as a (T, 7) float64 chunk of finite numbers (one 7-vector counts as T = 1).

    Raises:
        AgentInterfaceError: naming what is wrong with it (type, dtype, shape, non-finite entries).
    """
    if not isinstance(raw, np.ndarray | list | tuple):
        raise AgentInterfaceError(f"the policy's actions are a {type(raw).__name__}, not an array")
    arr = np.asarray(raw)
    if arr.dtype.kind not in "fiu":
        raise AgentInterfaceError(f"the policy's actions have dtype {arr.dtype}, not a numeric one")
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[0] < 1 or arr.shape[1] != ACTION_DIM:
        raise AgentInterfaceError(
            f"the policy's actions have shape {tuple(np.shape(raw))}; expected (T, {ACTION_DIM}) with T >= 1 "
            "(dx, dy, dz, droll, dpitch, dyaw, gripper); write an adapter (--adapter) for another action space"
        )
    chunk = np.array(arr, dtype=np.float64)  # a writable copy (decoded arrays are read-only views)
    bad = ~np.isfinite(chunk)
    if bad.any():
        rows, cols = np.nonzero(bad)
        where = ", ".join(f"[{r}, {c}]" for r, c in list(zip(rows.tolist(), cols.tolist(), strict=True))[:5])
        raise AgentInterfaceError(f"the policy's actions have {int(bad.sum())} non-finite entries (at {where} ...)")
    return chunk
