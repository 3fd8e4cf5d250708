"""What every report and comparison says about how a run's numbers may be read, besides the numbers: the flags
of its agent (heedful.capabilities declarations, recorded in the run's manifest).

A privileged agent was handed the ground truth (the decisions constraint set, the tabletop task and layout, the
household live state): its scores bound the benchmark, they are not a language agent's. A run whose stateless
audit (`heedful run --audit-stateless K`, heedful.runner.stateless) found answers that changed on replay came from
an agent that keeps state between episodes: its family and pair metrics may be earned by memory.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from heedful.runner.manifest import RunManifest

PRIVILEGED_FLAG = "privileged: not a language agent"


def was_privileged(manifest: RunManifest) -> bool:
    """The manifest's record of the declaration; for a run made before it was recorded, the registered agent's
    declaration now (False for an agent that is no longer registered)."""
    if manifest.privileged is not None:
        return manifest.privileged
    from heedful.agents.registry import agent_class
    from heedful.capabilities import capabilities
    from heedful.errors import HeedfulError

    try:
        return capabilities(agent_class(manifest.spec.agent, manifest.spec.suite)).privileged
    except (HeedfulError, ImportError):  # registered only where the run was made: nothing says it was privileged
        return False


def run_flags(manifest: RunManifest) -> list[str]:
    """The flags a report shows beside the run's agent, in a fixed order; empty for an unflagged run."""
    flags = [PRIVILEGED_FLAG] if was_privileged(manifest) else []
    stateful = manifest.stateless_audit.flag if manifest.stateless_audit is not None else None
    return flags + ([stateful] if stateful else [])


def flag_suffix(manifest: RunManifest) -> str:
    """ " [flag; flag]" after an agent's name, or "" for an unflagged run."""
    flags = run_flags(manifest)
    return f" [{'; '.join(flags)}]" if flags else ""
