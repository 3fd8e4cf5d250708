"""Pieces the subcommand modules share: the suite argument and a lazily created progress bar."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any


def suite_arg(p: argparse.ArgumentParser) -> None:
    from heedful.suites.registry import SUITES

    p.add_argument("suite", choices=SUITES.names(), help="benchmark suite")


class BackendNames:
    """The `--backend` choices: the backend registry's names (built-in and entry points), read only when the parser
    checks a value or prints its help, so that building the parser imports no runner."""

    def _names(self) -> list[str]:
        from heedful.runner.backend import BACKENDS

        return BACKENDS.names()

    def __contains__(self, name: object) -> bool:
        return name in self._names()

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())


class LazyProgress:
    """A tqdm bar created on the first update, so an error raised before any work prints no empty bar.

    Call it as `progress(n, total)`; `total` is read on the first call.
    """

    def __init__(self, enabled: bool, unit: str, desc: str) -> None:
        self.enabled, self.unit, self.desc = enabled, unit, desc
        self.bar: Any = None

    def __call__(self, n: int = 1, total: int | None = None) -> None:
        if not self.enabled:
            return
        if self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit=self.unit, desc=self.desc, file=sys.stderr, dynamic_ncols=True)
        self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def add_max_errors(p: Any) -> None:
    """`--max-errors N|P%`: how many unscored episodes still exit 0 (docs/exit-codes.md)."""
    p.add_argument(
        "--max-errors",
        metavar="N|P%",
        help="exit 0 even with up to N (or P%% of the planned) episodes crashed, timed out or with an interface "
        "error (default 0: any unscored episode exits 4; see docs/exit-codes.md)",
    )


RERUN_AGENT_HELP = (
    "a MODULE:CLASS agent that a tabletop video may import and run to re-run a trial of a run whose manifest names "
    "it, or a server URL such a re-run may connect to (a remote policy's; repeatable); without it only registered "
    "agents that connect nowhere are re-run: a run directory is data, and heedful never imports code or contacts a "
    "server it names"
)


def rerun_agent_arg(p: argparse.ArgumentParser) -> None:
    """`--rerun-agent MODULE:CLASS`, the only way a command that reads runs imports an agent a manifest names."""
    p.add_argument("--rerun-agent", action="append", default=[], metavar="MODULE:CLASS|URL", help=RERUN_AGENT_HELP)


def note_rerun_agents(names: list[str]) -> list[str]:
    """Say, in one line each on stderr, what `--rerun-agent` will import; return the names."""
    for name in names:
        if "://" in name:
            what = f"heedful: --rerun-agent {name}: trials of runs whose agent connects there are re-run through it"
        else:
            module = name.partition(":")[0]
            what = f"heedful: --rerun-agent {name}: module {module!r} is imported and run to re-run trials of runs "
            what += "whose agent it is"
        print(what, file=sys.stderr)
    return names
