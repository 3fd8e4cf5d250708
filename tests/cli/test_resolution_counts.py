"""How often one `heedful run` looks its suite and agent class up by name and reads the agent's capabilities, and how
often `heedful compare` / `heedful view` read each run's records: counted on the real command line, in process.

Measured with this test's counters on the same commands (8 decisions episodes, serial):

| per `heedful run` | before issue 41 | after h41a | now |
|---|---|---|---|
| suite looked up | 3 | 2 | 1 |
| agent class looked up | 3 | 2 | 1 |
| backend looked up | - | - | 1 |
| capabilities read | 20 | 20 | 3 |

The command line looks the suite up (to build its flags) and the agent class (to build its arguments) and hands both
to `api.evaluate` and the run; `runner.backend.make_backend` looks the backend up, which parses its own flags. The
capabilities are read for the class in `api.evaluate`, and for the agent before and after `describe()` (which
connects a remote agent, whose declarations may depend on the server): that last reading goes down to every rollout
in its context (before: once more per decisions episode, and 11 more times in the run).

`heedful compare` read each run's records 3 times and resolved the suite 4 times; now once and once. What is left is
asserted exactly, so that a new look-up shows here. `heedful view` read each run's records 5 times (the site, its
summary's report, the figure's report, the comparison and its pairing line); now once (`results.read_run`, handed
to every part as a `ReadRun`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from heedful.capabilities import Capabilities
from heedful.cli.main import main
from heedful.registry import Registry
from heedful.runner.store import RunStore
from heedful.suites.registry import get_suite

EPISODES = 8


@pytest.fixture
def counts(monkeypatch: pytest.MonkeyPatch) -> Iterator[Counter[str]]:
    counted: Counter[str] = Counter()
    get, init, records = Registry.get, Capabilities.__init__, RunStore.records

    def counted_get(self: Registry[Any], name: str) -> Any:
        counted[f"resolve {self.kind}"] += 1
        return get(self, name)

    def counted_init(self: Capabilities, *args: Any, **kwargs: Any) -> None:
        counted["capabilities"] += 1
        init(self, *args, **kwargs)

    def counted_records(self: RunStore, *args: Any, **kwargs: Any) -> Any:
        counted["records read"] += 1
        return records(self, *args, **kwargs)

    monkeypatch.setattr(Registry, "get", counted_get)
    monkeypatch.setattr(Capabilities, "__init__", counted_init)
    monkeypatch.setattr(RunStore, "records", counted_records)
    yield counted


def test_one_run_resolves_once_below_the_command_line_and_compare_reads_each_run_once(
    counts: Counter[str], tmp_path: Path
) -> None:
    dataset = tmp_path / "dataset"  # small: what `heedful check suite decisions` generates
    small = [f"{key}={value}" for key, value in get_suite("decisions").check_config.items()]
    assert main(["generate", "decisions", "--out", str(dataset), "--no-progress", *(f"--set={s}" for s in small)]) == 0
    runs = [tmp_path / "a", tmp_path / "b"]
    for run in runs:
        counts.clear()
        argv = ["run", "decisions", "--agent", "oracle", "--limit", str(EPISODES), "--dataset", str(dataset)]
        assert main([*argv, "--out", str(run), "--no-progress"]) == 0
        assert counts == {"resolve suite": 1, "resolve agent": 1, "resolve backend": 1, "capabilities": 3}

    counts.clear()
    assert main(["compare", *map(str, runs), "--resamples", "50"]) == 0
    assert counts == {"records read": len(runs), "resolve suite": 1}

    counts.clear()
    site = ["--out", str(tmp_path / "site"), "--episodes", "none", "--no-progress"]
    assert main(["view", *map(str, runs), *site]) == 0
    assert counts["records read"] == len(runs)
