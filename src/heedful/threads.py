"""A thread that runs a policy has the thread count its process chose (torch's, when torch is loaded).

`torch.set_num_threads(n)` (bc, lerobot) sets OpenMP's and MKL's thread counts of the calling thread only, and torch
applies it to another thread when that thread first runs a parallel region of torch's own, which a linear layer's
matrix product, computed by MKL, is not. So a thread that never asked torch, such as a lockstep episode's or a policy
server's, computed a batch of one observation (MKL's matrix-vector product) on as many threads as the machine has
cores: heavy-net's single call cost 77 ms of wall and 82 ms of CPU there against 13 ms on the thread that set one
thread (this 2-core machine), and two workers doing that oversubscribed the cores.
"""

from __future__ import annotations

import sys


def inherit_torch_threads() -> None:
    """Give the calling thread torch's process-wide thread count, if torch is loaded (nothing to do otherwise)."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.get_num_threads()  # torch sets this thread's OpenMP and MKL counts on its first call here
