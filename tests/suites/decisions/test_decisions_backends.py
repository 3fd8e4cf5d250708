"""The decisions suite gives identical records serially and in a process pool."""

from __future__ import annotations

from pathlib import Path

from heedful.api import evaluate
from heedful.runner import load_run


def test_process_pool_matches_serial(tmp_path: Path) -> None:
    for name, workers in (("serial", 1), ("pool", 2)):
        evaluate(
            suite="decisions",
            agent="random-valid",
            out=tmp_path / name,
            limit=120,
            workers=workers,
            progress=False,
            split="test",
        )
    _, serial = load_run(tmp_path / "serial")
    _, pool = load_run(tmp_path / "pool")
    assert len(serial) == 120
    assert [r.deterministic_dict() for r in serial] == [r.deterministic_dict() for r in pool]
    assert {r.keys["split"] for r in serial} == {"test"}
