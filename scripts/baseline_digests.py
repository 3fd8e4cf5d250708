"""Digests of every suite's baseline records, to show that a refactoring changed no result.

Runs each baseline cell below through the public command line (`heedful run`, then `heedful export
--format jsonl`), drops the fields that measure time, and hashes each record's canonical JSON. `--write FILE`
stores the digests; `--check FILE` runs again and lists every cell and episode whose record differs, exit
status 1 if any does. Use it around any change that must not move a number:

    python scripts/baseline_digests.py --write /tmp/before.json      # on the old commit
    python scripts/baseline_digests.py --check /tmp/before.json      # on the new one

`--quick` runs the small cells only; the full set took 4 min 21 s on this 2-core machine on 2026-12-03 (an earlier
measurement of 115 s was not reproduced).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

VOLATILE = {"timing"}
"""Export fields that measure wall time; everything else must be byte-identical."""

QUICK: dict[str, list[str]] = {
    "decisions/oracle": ["decisions", "--agent", "oracle", "--limit", "400", "--order", "file"],
    "decisions/random-valid": ["decisions", "--agent", "random-valid", "--limit", "400", "--order", "file"],
    "decisions/majority": ["decisions", "--agent", "majority", "--limit", "400", "--order", "file"],
    "decisions/order-of-mention": ["decisions", "--agent", "order-of-mention", "--limit", "400", "--order", "file"],
    "decisions/oracle-masked": ["decisions", "--agent", "oracle", "--mask", "--limit", "400", "--order", "file"],
    "household/oracle": ["household", "--agent", "oracle", "--split", "val_unseen", "--workers", "2"],
    "household/commonsense": ["household", "--agent", "commonsense", "--split", "val_unseen", "--workers", "2"],
    "household/situated": ["household", "--agent", "situated", "--split", "val_unseen", "--workers", "2"],
    "household/sweep": ["household", "--agent", "sweep", "--split", "val_unseen", "--workers", "2"],
    "tabletop/oracle": ["tabletop", "--agent", "oracle", "--level", "L1", "--scene", "2", "--trials", "1"],
    "tabletop/noop": ["tabletop", "--agent", "noop", "--level", "L0", "--scene", "1", "--trials", "1"],
}
FULL: dict[str, list[str]] = {
    **QUICK,
    "decisions/all-oracle": ["decisions", "--agent", "oracle", "--workers", "2"],
    "decisions/lexical": ["decisions", "--agent", "lexical"],
    "decisions/unnamed-member": ["decisions", "--agent", "unnamed-member"],
    "decisions/bow": ["decisions", "--agent", "bow", "--split", "test"],
    "household/all-situated": ["household", "--agent", "situated", "--workers", "2"],
    "tabletop/memorizer": ["tabletop", "--agent", "memorizer", "--level", "L1", "--scene", "1", "--trials", "1"],
    "tabletop/blind": ["tabletop", "--agent", "blind", "--level", "L2", "--scene", "3", "--trials", "1"],
}


def _heedful(*args: str) -> None:
    done = subprocess.run([sys.executable, "-m", "heedful", *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"heedful {' '.join(args)} failed ({done.returncode}):\n{done.stderr[-2000:]}")


SHARED_DATASETS = ("decisions", "household")
"""Suites whose dataset is generated once (`heedful generate SUITE`, seed 0) and shared by their cells."""


def _drop(row: dict[str, Any], path: str) -> None:
    """Remove a dotted field (`prediction.tools`) from an exported row, where it is present."""
    *parents, last = path.split(".")
    for key in parents:
        row = row.get(key) if isinstance(row.get(key), dict) else {}
    row.pop(last, None)


def cell_digests(argv: list[str], work: Path, dataset: Path | None, ignore: Sequence[str] = ()) -> dict[str, str]:
    """sha256 of each exported record (volatile and `ignore`d fields dropped), by episode id."""
    run_dir, export = work / "run", work / "records.jsonl"
    data = ["--dataset", str(dataset)] if dataset is not None else []
    _heedful("run", *argv, *data, "--out", str(run_dir), "--no-progress")
    _heedful("export", str(run_dir), "--format", "jsonl", "--out", str(export))
    digests = {}
    for line in export.read_text(encoding="utf-8").splitlines():
        row = {k: v for k, v in json.loads(line).items() if k not in VOLATILE}
        for path in ignore:
            _drop(row, path)
        canonical = json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        digests[str(row["episode_id"])] = hashlib.sha256(canonical.encode()).hexdigest()
    return dict(sorted(digests.items()))


def all_digests(cells: dict[str, list[str]], ignore: Sequence[str] = ()) -> dict[str, dict[str, str]]:
    out = {}
    with tempfile.TemporaryDirectory() as shared:
        datasets: dict[str, Path] = {}
        for k, (name, argv) in enumerate(cells.items(), 1):
            print(f"[{k}/{len(cells)}] {name}", file=sys.stderr, flush=True)
            suite = argv[0]
            if suite in SHARED_DATASETS and suite not in datasets:
                datasets[suite] = Path(shared) / suite
                _heedful("generate", suite, "--out", str(datasets[suite]), "--no-progress")
            with tempfile.TemporaryDirectory() as tmp:
                out[name] = cell_digests(argv, Path(tmp), datasets.get(suite), ignore)
    return out


def differences(before: dict[str, dict[str, str]], after: dict[str, dict[str, str]]) -> list[str]:
    lines = []
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name), after.get(name)
        if old is None or new is None:
            lines.append(f"{name}: only {'after' if old is None else 'before'}")
            continue
        changed = sorted(e for e in set(old) | set(new) if old.get(e) != new.get(e))
        if changed:
            lines.append(f"{name}: {len(changed)} of {len(old)} records differ, e.g. {', '.join(changed[:5])}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", type=Path, metavar="FILE", help="store the digests in FILE (JSON)")
    mode.add_argument("--check", type=Path, metavar="FILE", help="compare against digests stored in FILE")
    parser.add_argument("--quick", action="store_true", help="the small cells only")
    parser.add_argument(
        "--only",
        metavar="PREFIX",
        help="only the cells whose name starts with PREFIX (e.g. tabletop/); --write then keeps FILE's other cells",
    )
    parser.add_argument(
        "--ignore",
        action="append",
        default=[],
        metavar="FIELD",
        help="leave a (dotted) field out of the hashes, e.g. prediction.tools for a change of payload format; "
        "--write and --check must name the same fields",
    )
    args = parser.parse_args(argv)
    cells = QUICK if args.quick else FULL
    if args.only:
        cells = {name: argv_ for name, argv_ in cells.items() if name.startswith(args.only)}
    if args.check is not None:
        before = json.loads(args.check.read_text(encoding="utf-8"))
        cells = {name: argv_ for name, argv_ in cells.items() if name in before}
        ran = all_digests(cells, args.ignore)
        diff = differences({name: before[name] for name in ran}, ran)  # --quick checks its own cells only
        print("\n".join(diff) if diff else f"all {len(cells)} cells byte-identical")
        return 1 if diff else 0
    digests = all_digests(cells, args.ignore)
    if args.only and args.write.exists():  # a suite's cells rewritten, the others kept as they were
        digests = {**json.loads(args.write.read_text(encoding="utf-8")), **digests}
    args.write.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {sum(map(len, digests.values()))} record digests of {len(digests)} cells to {args.write}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
