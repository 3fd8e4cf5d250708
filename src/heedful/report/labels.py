"""Short run labels for side-by-side tables, figures and comparisons: the agent and the options that differ.

Two runs of `llm` against the same server differ in, say, `constrain`; a label of the whole agent string (model,
base URL, every argument) hides that and scrolls sideways. A run's label is its agent (with the model's short
name) plus each run option and agent argument whose value is not the same in every run shown, e.g.
`llm SmolLM2-135M (constrain=false)`; where two labels still coincide, the run directory's name is added.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

MISSING = "(default)"
# Options that choose where outputs go, not what is measured: two runs differing only there measured the same thing.
OUTPUT_ONLY = frozenset({"video_dir"})


def settings(manifest: Any) -> dict[str, str]:
    """A run's options and agent arguments, each as short text (options first; an agent argument that names the
    same key as an option is prefixed `agent.`)."""
    spec = manifest.spec
    found = {str(key): _text(value) for key, value in dict(spec.options).items() if key not in OUTPUT_ONLY}
    for key, value in dict(spec.agent_args).items():
        found[f"agent.{key}" if key in found else str(key)] = _text(value)
    return found


def differing(manifests: Sequence[Any]) -> list[str]:
    """The settings whose values are not the same in every run (a setting one run lacks counts as different)."""
    each = [settings(manifest) for manifest in manifests]
    keys = list(dict.fromkeys(key for found in each for key in found))
    return [key for key in keys if len({found.get(key, MISSING) for found in each}) > 1]


def short_labels(manifests: Sequence[Any], directories: Sequence[Path | str]) -> list[str]:
    """One label per run (see the module docstring)."""
    keys = differing(manifests)
    labels = []
    for manifest in manifests:
        found = settings(manifest)
        shown = ", ".join(f"{key}={found.get(key, MISSING)}" for key in keys)
        labels.append(f"{_agent(manifest)} ({shown})" if shown else _agent(manifest))
    return [
        f"{label} [{Path(folder).name}]" if labels.count(label) > 1 else label
        for label, folder in zip(labels, directories, strict=True)
    ]


def differences_line(manifest_a: Any, manifest_b: Any) -> str:
    """ "the runs differ in: constrain (A true, B false), ..." or that they differ in no option."""
    keys = differing([manifest_a, manifest_b])
    if _agent(manifest_a) != _agent(manifest_b):
        keys = ["agent", *keys]
    if not keys:
        return "the runs differ in no option or agent argument"
    a, b = settings(manifest_a), settings(manifest_b)
    a["agent"], b["agent"] = _agent(manifest_a), _agent(manifest_b)
    return "the runs differ in: " + "; ".join(
        f"{key} (A {a.get(key, MISSING)}, B {b.get(key, MISSING)})" for key in keys
    )


def _agent(manifest: Any) -> str:
    model = manifest.agent.get("model")
    return f"{manifest.spec.agent} {model}" if model else str(manifest.spec.agent)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)
