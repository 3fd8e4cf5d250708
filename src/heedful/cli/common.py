"""Pieces the subcommand modules share: the suite argument and a lazily created progress bar."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def suite_arg(p: argparse.ArgumentParser) -> None:
    from heedful.suites.registry import SUITES

    p.add_argument("suite", choices=SUITES.names(), help="benchmark suite")


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
