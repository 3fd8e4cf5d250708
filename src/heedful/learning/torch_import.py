"""Import torch so that it works in a process that has already rendered with MuJoCo's EGL backend.

On a CPU machine EGL is Mesa's llvmpipe, which loads its own libLLVM; torch's CUDA wheels bundle triton, whose
libtriton carries another LLVM, and importing it after Mesa's crashes the process (a segmentation fault,
reproduced here: render one frame, then `import triton`). torch imports triton lazily, through its compiler
stack (`torch._dynamo`, which the optimizers and `use_deterministic_algorithms` touch). heedful never compiles
with torch, so when Mesa's LLVM is already loaded and triton is not, triton is hidden from that process:
torch then sees no triton package, as on a CPU-only install.
"""

from __future__ import annotations

import sys
from pathlib import Path


def llvm_loaded() -> bool:
    """Whether a libLLVM shared object is mapped into this process (Linux; False elsewhere)."""
    try:
        return "libLLVM" in Path("/proc/self/maps").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def guard_triton() -> None:
    """Hide triton if importing it now would crash this process (see the module docstring). Call it before
    whatever may import torch's compiler stack: at import, before building an optimizer, at each trial."""
    if "triton" not in sys.modules and llvm_loaded():
        sys.modules["triton"] = None  # type: ignore[assignment]  # `import triton` now raises ImportError
