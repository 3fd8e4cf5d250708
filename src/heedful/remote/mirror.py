"""Serving heedful's scripted tabletop agents (oracle, blind) as low-level policies: `heedful serve`.

These agents plan skill calls from privileged ground truth (the task spec, the trial's layout), which a
remote client does not normally send. So the served agent is a protocol test peer, not a policy: heedful's
remote agent adds `heedful/episode` (the trial as JSON, the episode seed, the control step) to every
observation once the server's metadata asks for it, and the server

1. rolls the trial out once in its own simulator with the agent, exactly as `heedful run` does in process
   (the same perturbed layout, the same seed, so the same skill calls), keeping every action applied;
2. answers each request with the next `chunk` of those actions from the step the client is at.

The simulator is deterministic, so a client that executes them reproduces the in-process trajectory and
scores: the network path is checked against a known answer. The images and the state in the observation
are ignored. A request without `heedful/episode` gets openpi's error reply (a traceback, then close).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from heedful.capabilities import capabilities
from heedful.errors import ConfigError
from heedful.remote.wire import EPISODE_KEY, NEEDS_KEY
from heedful.version import installed_version

CACHE_TRIALS = 16  # rolled-out trials kept; a client needs only its current one


class MirrorPolicy:
    """A tabletop planner agent served as an action-chunk policy (see the module docstring).

    Args:
        agent: Registry name of a tabletop planner agent ("oracle", "blind").
        chunk: Actions per reply (the action horizon H).
        agent_args: Keyword arguments of the agent.
        train: What a fittable agent (blind) fits on; defaults to the default dataset's L0 tasks, as a run
            without --dataset does.
    """

    def __init__(
        self,
        agent: str = "oracle",
        chunk: int = 10,
        agent_args: dict[str, Any] | None = None,
        train: Sequence[Any] | None = None,
    ) -> None:
        from heedful.agents.registry import make_agent
        from heedful.suites.tabletop.registry import evaluation_tasks
        from heedful.suites.tabletop.suite import SUITE

        if not isinstance(chunk, int) or isinstance(chunk, bool) or chunk < 1:
            raise ConfigError(f"chunk must be a positive integer (actions per reply), got {chunk!r}")
        self.agent = make_agent(agent, agent_args, suite="tabletop")
        declared = capabilities(self.agent)
        if declared.kind != "planner":
            raise ConfigError(f"heedful serve serves tabletop planner agents (oracle, blind); {agent!r} is not one")
        if declared.fit is not None:
            declared.fit(SUITE.training_episodes(list(train or evaluation_tasks())))
        self.agent_name = agent
        self.chunk = chunk
        self._cache: OrderedDict[tuple[str, int], NDArray[np.float64]] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def metadata(self) -> dict[str, Any]:
        """What the server sends on connect."""
        return {
            "policy": f"heedful tabletop/{self.agent_name} (served by heedful serve)",
            "note": (
                "protocol test peer, not a policy: it acts from the trial's ground truth sent under "
                "heedful/episode and ignores images and state"
            ),
            NEEDS_KEY: [EPISODE_KEY],
            "heedful_version": installed_version(),
            "agent": capabilities(self.agent).description(),
            "action_space": "delta_eef",
            "action_dim": 7,
            "action_horizon": self.chunk,
        }

    def infer(self, obs: dict[str, Any]) -> dict[str, Any]:
        """The next `chunk` actions of the trial in `obs[EPISODE_KEY]`, from its `step`."""
        episode = obs.get(EPISODE_KEY)
        if not isinstance(episode, dict) or not {"trial", "seed", "step"} <= set(episode):
            raise ConfigError(
                f"the served {self.agent_name!r} acts from ground truth and needs {EPISODE_KEY!r} "
                '({"trial": JSON, "seed": int, "step": int}) in every observation; heedful\'s remote agent '
                "sends it when the server's metadata asks (do not run it with episode_info=never)"
            )
        actions = self._actions(str(episode["trial"]), int(episode["seed"]))
        step = int(episode["step"])
        if step < 0:
            raise ConfigError(f"{EPISODE_KEY} step must be 0 or more, got {step}")
        rows = actions[step : step + self.chunk]
        if len(rows) < self.chunk:  # past the horizon: hold still, keeping the gripper as it is
            hold = np.zeros((self.chunk - len(rows), 7))
            hold[:, 6] = actions[-1, 6] if len(actions) else -1.0
            rows = np.concatenate([rows, hold])
        return {"actions": np.array(rows, dtype=np.float64)}  # a copy: callers may change it

    def _actions(self, trial_json: str, seed: int) -> NDArray[np.float64]:
        key = (hashlib.sha256(trial_json.encode()).hexdigest(), seed)
        with self._lock:
            if key in self._cache:
                self._cache.move_to_end(key)
                return self._cache[key]
        from heedful.suites.tabletop.model import TabletopTrial
        from heedful.suites.tabletop.rollout import run_trial

        run = run_trial(TabletopTrial.model_validate_json(trial_json), self.agent, seed)
        if run.actions is None:  # pragma: no cover - run_trial always records its actions
            raise ConfigError("the mirror rollout recorded no actions")
        with self._lock:
            self._cache[key] = run.actions
            while len(self._cache) > CACHE_TRIALS:
                self._cache.popitem(last=False)
        return run.actions
