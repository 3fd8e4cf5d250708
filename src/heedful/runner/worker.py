"""The worker side of the process pool and of Ray actors (heedful.runner.ray_backend), and what the main process
sends them: `worker_setup` (registry targets, the spec, training episodes, the EGL devices), `episode_chunks`
(episodes as JSON), then `init_worker` once per worker and `run_chunk` per chunk. Only plain values cross the
process boundary."""

from __future__ import annotations

import math
import os
import signal
import threading
import time
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from heedful.agents.registry import AGENTS, agent_class, import_first_from, make_agent, user_dirs
from heedful.capabilities import Capabilities, capabilities
from heedful.devices import set_worker_index
from heedful.errors import HeedfulError, RunError
from heedful.protocols import Agent
from heedful.requirements import check_requirements
from heedful.runner.manifest import RunSpec
from heedful.runner.rollouts import Work, rollouts
from heedful.sims.gl_devices import WorkerCounter, renderer_since, use_egl_device
from heedful.suites.base import Episode, Suite
from heedful.suites.registry import SUITES, get_suite

CHUNK_SIZE = 8
"""Episodes per pool task: small, so progress is smooth and a killed run loses little."""


PARENT_POLL_S = 1.0


def import_target(obj: Any, what: str) -> str:
    """The `"module:attr"` path a spawned worker imports to find `obj` again.

    Raises:
        RunError: `obj` is defined inside a function, so no worker can import it.
    """
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    if not module or not qualname or "<locals>" in qualname:
        raise RunError(
            f"{what} {obj!r} cannot be imported by worker processes; define it at module level "
            "in an importable module, or run with workers=1"
        )
    return f"{module}:{qualname}"


def worker_setup(work: Work) -> dict[str, Any]:
    # Registrations made at run time (tests, notebooks) do not exist in a spawned worker, so the worker
    # re-registers each name with the import path of the object the main process resolved.
    spec = work.spec
    agent_cls = agent_class(spec.agent, spec.suite)
    return {
        "spec": spec.model_dump_json(),
        # `--agent MODULE:CLASS` from the current directory: the worker imports it from there too
        "user_dirs": user_dirs(agent_cls),
        "suite_target": SUITES.target(spec.suite),  # a declared suite is an object: its registered path finds it
        "agent_target": import_target(agent_cls, f"agent {spec.agent!r}"),
        "train": [ep.model_dump_json() for ep in work.train] if work.declared.fittable else [],
        "batch": work.batch,
        "egl_devices": list(work.egl_devices),
    }


def episode_chunks(todo: Sequence[tuple[int, Episode]], workers: int, batch: int = 1) -> list[list[tuple[int, str]]]:
    # Lockstep needs a chunk of at least `batch` episodes (twice that keeps the batch full as episodes end), but
    # never so large that some workers get nothing.
    size = max(1, min(max(CHUNK_SIZE, 2 * batch), math.ceil(len(todo) / workers)))
    items = [(index, episode.model_dump_json()) for index, episode in todo]
    return [items[i : i + size] for i in range(0, len(items), size)]


@dataclass
class _WorkerState:
    spec: RunSpec
    suite: Suite
    agent: Agent
    declared: Capabilities
    batch: int
    index: int


_STATE: _WorkerState | None = None


_SETUP_ERROR: str | None = None


def _exit_with_parent() -> None:
    # A worker whose main process was SIGKILLed would otherwise wait forever on its task queue.
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(PARENT_POLL_S)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="heedful-parent-watch", daemon=True).start()


def init_worker(setup: dict[str, Any], worker: WorkerCounter | int = 0) -> None:
    """Pool initializer: choose this worker's EGL device (`worker`: its index, or the pool's counter that gives
    it one), then build the suite and the (fitted) agent once per worker process."""
    global _STATE, _SETUP_ERROR
    # Ctrl-C reaches the whole process group; only the main process handles it (and stops the workers).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _exit_with_parent()
    index = worker.take() if isinstance(worker, WorkerCounter) else worker
    try:
        use_egl_device(setup.get("egl_devices") or (), index)  # before anything renders in this process
        set_worker_index(index)  # before the agent is built: a policy on plain "cuda" takes cuda:(index mod GPUs)
        spec = RunSpec.model_validate_json(setup["spec"])
        for module, directory in dict(setup.get("user_dirs") or {}).items():
            import_first_from([directory], module)
        SUITES.register(spec.suite, setup["suite_target"])
        # `SUITE/NAME` is the first name make_agent tries, so the worker builds the class the main resolved.
        AGENTS.register(f"{spec.suite}/{spec.agent}", setup["agent_target"])
        suite = get_suite(spec.suite)
        check_requirements(spec.suite, suite.requirements(spec.options))  # imported here, where they are used
        declared = capabilities(agent_class(spec.agent, spec.suite)).required(spec.agent_args)
        check_requirements(f"{spec.suite} --agent {spec.agent}", declared)  # the agent's, likewise
        agent = make_agent(spec.agent, spec.agent_args, suite=spec.suite)
        built = capabilities(agent)  # read once per worker: its fit and concurrency
        if built.fit is not None:
            built.fit([suite.parse_episode(text) for text in setup["train"]])
        batch = int(setup.get("batch", 1))
        _STATE = _WorkerState(spec=spec, suite=suite, agent=agent, declared=built, batch=batch, index=index)
    except HeedfulError as err:  # a typed error (a requirement that does not import) needs no traceback
        _SETUP_ERROR = f"setting up the worker failed: {type(err).__name__}: {err}"
    except Exception:
        _SETUP_ERROR = f"setting up the worker failed:\n{traceback.format_exc()}"


def run_chunk(items: list[tuple[int, str]]) -> dict[str, Any]:
    """Pool task: roll out a chunk of (index, episode JSON) pairs; return record JSON texts (with this worker's
    index and its renderer, once it has rendered) or an error."""
    if _STATE is None:
        return {"error": _SETUP_ERROR or "the worker was not set up"}
    state = _STATE
    try:
        pairs = ((index, state.suite.parse_episode(text)) for index, text in items)
        # The rollouts read the agent's declarations themselves: a worker's remote agent has not connected yet when
        # the worker starts (the main process's `describe()` did), and whether it is privileged may be the server's.
        found = rollouts(state.suite, state.agent, pairs, state.spec, state.declared.concurrency, state.batch)
        records = [r.model_dump_json() for r in found]
    except Exception:
        return {"error": traceback.format_exc()}
    return {"records": records, "worker": state.index, "renderer": renderer_since(0)}
