"""Which GPU a worker's policy runs on when it asks for plain "cuda".

A pool worker (and a Ray actor) builds its own copy of the agent; a policy given `device=cuda` would put every
worker's network on `cuda:0` and leave the node's other GPUs idle. As with the EGL device a worker renders on
(`heedful.sims.gl_devices`: worker i on device i mod N), the worker's index is noted here before its agent is
built (`set_worker_index`), and an agent that resolves its device with `spread_device` puts worker i on
`cuda:(i mod G)`, G the CUDA devices this process sees (CUDA_VISIBLE_DEVICES honoured). A device with an index
(`cuda:1`) or another type (`cpu`) is kept as given; a serial run is worker 0.
"""

from __future__ import annotations

_WORKER = 0


def set_worker_index(index: int) -> None:
    """Note this process's worker index (its pool number, or its Ray actor's index) before its agent is built."""
    global _WORKER
    _WORKER = int(index)


def worker_index() -> int:
    """This process's worker index (0 in a serial run)."""
    return _WORKER


def spread_device(name: str, worker: int | None = None, count: int | None = None) -> str:
    """`cuda:(worker mod count)` for plain "cuda" when there are GPUs, else `name` unchanged.

    `worker` defaults to this process's index, `count` to the CUDA devices torch sees (torch is not imported for a
    name other than "cuda").
    """
    if name.strip() != "cuda":
        return name
    if count is None:
        import torch

        count = int(torch.cuda.device_count())
    if count < 1:
        return name
    return f"cuda:{(worker_index() if worker is None else worker) % count}"
