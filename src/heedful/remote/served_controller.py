"""Serving a tabletop controller (a built-in one or your own `MODULE:CLASS`) as an openpi policy: `heedful serve`.

A controller already answers openpi's way (an observation in, a (T, 7) action chunk out), so the server only
translates LIBERO's wire keys back into heedful's controller observation (`image`, `wrist_image`, `state`,
`prompt`, `step`) and calls `predict`. To reset the controller when a trial starts and to give it the control
step, it asks heedful's remote agent for `heedful/episode` (see heedful.remote.mirror) and reads only its
`episode_id` and `step`, never the trial; every record says the episode info was sent
(`agent_info.episode_info_sent`). A client that does not send it gets a reset whenever the prompt changes and
a step counted from there.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from heedful.capabilities import capabilities
from heedful.errors import ConfigError
from heedful.remote.adapters import LiberoAdapter
from heedful.remote.wire import EPISODE_KEY, NEEDS_KEY
from heedful.version import installed_version

if TYPE_CHECKING:
    from heedful.protocols import Agent


@runtime_checkable
class _Served(Protocol):
    """What the server calls of a controller: `heedful.protocols.ControllerAgent` but its `name` (the server names it by
    its `--agent` name, and a controller may have none)."""

    def reset(self) -> None: ...

    def set_instruction(self, instruction: str) -> None: ...

    def predict(self, observation: dict[str, Any]) -> NDArray[np.float64]: ...


class ControllerPolicy:
    """A tabletop controller behind openpi's `infer(obs) -> {"actions": ...}` (see the module docstring).

    Args:
        agent: The built controller.
        agent_name: Its `--agent` name, for the metadata.
        adapter: The wire keys the client sends (LIBERO's by default, as heedful's remote agent does).
    """

    def __init__(self, agent: Agent, agent_name: str, adapter: LiberoAdapter | None = None) -> None:
        if capabilities(agent).kind != "controller":
            raise ConfigError(f"{agent_name!r} is not a tabletop controller (it has no predict(observation))")
        if not isinstance(agent, _Served):
            raise ConfigError(f"{agent_name!r} is a controller without reset() or set_instruction(), which serve calls")
        self.agent: _Served = agent
        self.agent_name = agent_name
        self.adapter = adapter or LiberoAdapter()
        self._lock = threading.Lock()  # one controller, one trial at a time: requests are serialised
        self._episode: tuple[object, str] | None = None
        self._step = 0

    @property
    def metadata(self) -> dict[str, Any]:
        return {
            "policy": f"heedful tabletop/{self.agent_name} (served by heedful serve)",
            "note": f"a controller; reads only episode_id and step from {EPISODE_KEY}, never the trial",
            NEEDS_KEY: [EPISODE_KEY],
            "heedful_version": installed_version(),
            "agent": capabilities(self.agent).description(),
            "action_space": "delta_eef",
            "action_dim": 7,
        }

    def infer(self, obs: dict[str, Any]) -> dict[str, Any]:
        """The controller's chunk for this observation, as `{"actions": (T, 7) float64}`."""
        adapter = self.adapter
        prompt = str(obs.get(adapter.prompt_key or "prompt", ""))
        info = obs.get(EPISODE_KEY)
        episode = (info.get("episode_id"), prompt) if isinstance(info, dict) else (None, prompt)
        with self._lock:
            if episode != self._episode or (isinstance(info, dict) and int(info.get("step", 1)) == 0):
                self.agent.reset()
                self.agent.set_instruction(prompt)
                self._episode, self._step = episode, 0
            step = int(info["step"]) if isinstance(info, dict) and "step" in info else self._step
            observation: dict[str, Any] = {"prompt": prompt, "step": step}
            for ours, key in (("image", adapter.image_key), ("wrist_image", adapter.wrist_image_key)):
                if key is not None and key in obs:
                    observation[ours] = np.asarray(obs[key], dtype=np.uint8)
            if adapter.state_key is not None and adapter.state_key in obs:
                observation["state"] = np.asarray(obs[adapter.state_key], dtype=np.float64)
            actions = np.asarray(self.agent.predict(observation), dtype=np.float64)
            self._step = step + len(actions)
        return {"actions": actions}
