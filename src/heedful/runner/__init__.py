"""Run an agent on a suite into a resumable run directory, serially or in local worker processes.

A run directory holds `manifest.json` (what was run, with what, where and when) and `records.sqlite`
(one committed record per episode). Reports are computed from run directories only (`load_run`).
"""

from heedful.runner.manifest import RunManifest, RunSpec
from heedful.runner.run import RunResult, run
from heedful.runner.store import RunStore, load_run

__all__ = ["RunManifest", "RunResult", "RunSpec", "RunStore", "load_run", "run"]
