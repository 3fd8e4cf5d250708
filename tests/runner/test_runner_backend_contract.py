"""A backend from outside heedful, registered by name as the `heedful.backends` entry-point group registers one, runs
`heedful run --backend NAME` with the records of the built-in local backend: `heedful.runner.backend`'s contract is
all a backend writes (`OneByOne` below: the files touched to add a backend are its own module and an entry point)."""

from __future__ import annotations

import json
from collections.abc import Generator
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path

import pytest

from heedful.cli import main
from heedful.errors import ConfigError
from heedful.records import Record
from heedful.registry import Registry
from heedful.runner import backend
from heedful.runner.backend import BackendFlags
from heedful.runner.rollouts import Work, rollouts

RUN = ["run", "decisions", "--agent", "random-valid", "--limit", "12", "--no-progress"]


@dataclass(frozen=True)
class OneByOne:
    """A third party's backend: every episode alone, in the order given, in this process."""

    workers: int = 1
    in_this_process = True
    on_this_machine = True

    @classmethod
    def from_flags(cls, flags: BackendFlags) -> OneByOne:
        if flags.address is not None or flags.resources is not None:
            raise ConfigError("one-by-one takes neither --address nor --resources")
        return cls(flags.workers)

    def where(self) -> str:
        return "one-by-one"

    def execute(self, work: Work) -> Generator[list[Record], None, None]:
        if work.declared.fit is not None:
            work.declared.fit(work.train)
        for item in work.todo:
            yield list(rollouts(work.suite, work.agent, [item], work.spec, declared=work.declared))

    def session(self) -> AbstractContextManager[None]:
        return nullcontext()


def _records(run: Path, tmp_path: Path) -> list[dict[str, object]]:
    out = tmp_path / f"{run.name}.jsonl"
    assert main(["export", str(run), "--format", "jsonl", "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    return [{k: v for k, v in row.items() if k != "timing"} for row in rows]


def test_a_backend_registered_by_name_runs_heedful_run_with_the_local_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ours = {**backend.BUILTIN_BACKENDS, "one-by-one": f"{__name__}:OneByOne.from_flags"}  # as an entry point adds it
    monkeypatch.setattr(backend, "BACKENDS", Registry("backend", "heedful.backends", ours))
    assert main([*RUN, "--backend", "one-by-one", "--out", str(tmp_path / "theirs")]) == 0
    assert main([*RUN, "--out", str(tmp_path / "local")]) == 0
    manifest = json.loads((tmp_path / "theirs" / "manifest.json").read_text())
    assert manifest["backend"] == "one-by-one"
    theirs, local = _records(tmp_path / "theirs", tmp_path), _records(tmp_path / "local", tmp_path)
    assert len(theirs) == 12 and theirs == local
    with pytest.raises(ConfigError, match="one-by-one takes neither"):
        backend.make_backend("one-by-one", BackendFlags(address="auto"))
