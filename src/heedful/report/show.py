"""`heedful show RUN EPISODE_ID`: one episode in the terminal, from its record (and its dataset line).

What the agent was given (the instruction as shown, the observation summary or image, the exact prompt of a
language agent), what it answered (prediction, raw text), the gold, the scores the suite gave (per stage for
tabletop), the status and the error. Long texts are cut to a few lines unless `full`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from heedful.errors import DatasetError, RunError
from heedful.records import PROMPT, Record
from heedful.registry import suggest

if TYPE_CHECKING:
    from heedful.suites.base import Suite

SHORT_LINES = 12


def show_episode(run_dir: Path, episode_id: str, *, dataset: Path | None = None, full: bool = False) -> str:
    """The episode `episode_id` of the run in `run_dir` as text.

    Raises:
        RunError: no such run, or no record of that episode (the message suggests the nearest id).
    """
    from heedful.runner.manifest import read_manifest
    from heedful.runner.store import RECORDS_NAME, RunStore
    from heedful.suites.registry import get_suite

    manifest = read_manifest(Path(run_dir))
    if not (Path(run_dir) / RECORDS_NAME).is_file():
        raise RunError(f"{run_dir} has no records yet")
    with RunStore(Path(run_dir)) as store:
        store.check_producer(manifest.run_identity)
        store.verify(manifest)  # an edited run is refused here too
        records = {r.episode_id: r for r in store.records()}
        record = records.get(episode_id)
        if record is None:
            raise RunError(
                f"run {run_dir} has no record of episode {episode_id!r}{suggest(episode_id, records)}; "
                f"`heedful export {run_dir} --format jsonl --out -` lists every episode id"
            )
        prompt = record.inputs.get(PROMPT)
        prompt_text = store.prompt_text(str(prompt["sha256"])) if isinstance(prompt, dict) else None
    spec = manifest.spec
    suite = get_suite(spec.suite)
    line, note = _dataset_line(suite, spec.dataset_source, record, dataset)
    out = [f"episode {record.episode_id} of {run_dir} ({spec.suite}, agent {spec.agent}, seed {spec.seed})"]
    out.append(_field("status", record.status.value + (f": {record.error}" if record.error else "")))
    out.append(_field("groups", ", ".join(f"{k} {v}" for k, v in record.keys.items())))
    instruction = record.inputs.get("instruction")
    if instruction is None and line is not None:
        instruction = suite.describe_task(line)[0]
    out.append(_field("instruction", str(instruction) if instruction is not None else "(not recorded)"))
    for name, value in record.inputs.items():
        if name not in ("instruction", PROMPT):
            out.append(_field(name, _compact(value)))
    if line is not None:
        out.append(_field("task", suite.describe_task(line)[1] or "-"))
        for name, text in suite.observation_summary(line):
            out.append(_field(name, _cut(text, full)))
    elif note:
        out.append(_field("task", note))
    out.append(_field("gold", _compact(record.gold)))
    details = suite.record_details(record)
    if details and not full:
        out.append(_field("prediction", "(read below; --full prints the whole JSON)"))
    else:
        out.append(_field("prediction", _cut(_compact(record.prediction), full)))
    out.append(_field("correct", "-" if record.correct is None else str(record.correct)))
    out.append(_field("scores", "  ".join(f"{k} {_number(v)}" for k, v in record.scores.items()) or "-"))
    for name, text in details:
        out.append(_field(name, _cut(text, full)))
    out.append(_field("raw output", _cut(record.raw_output, full) if record.raw_output else "-"))
    if isinstance(prompt, dict):
        shown = _cut(prompt_text, full) if prompt_text is not None else "(text not in the store)"
        out.append(_field("prompt", f"sha256 {prompt['sha256']}\n{shown}"))
    if record.agent_info:
        out.append(_field("agent info", _cut(_compact(record.agent_info), full)))
    if record.usage:
        out.append(_field("usage", "  ".join(f"{k} {v}" for k, v in record.usage.items())))
    if not full:
        out.append("(long texts are cut; --full prints them whole)")
    return "\n".join(out)


def _dataset_line(suite: Suite, source: str, record: Record, dataset: Path | None) -> tuple[Any, str | None]:
    """The episode's dataset line (a tabletop trial's task), or None and why not."""
    from heedful.dataset_cache import GENERATED, source_episodes

    base = source.split(" split=")[0]
    if dataset is None and not base.startswith(GENERATED) and not Path(base).is_dir():
        return None, f"(the run's dataset {base} is not here; pass --dataset DIR to show the task)"
    try:
        episodes = source_episodes(suite, source, dataset, verify=False)
    except (DatasetError, ValueError) as exc:
        return None, f"(the run's dataset could not be read: {exc})"
    wanted = {record.episode_id, record.keys.get("task", "")}
    return next((ep for ep in episodes if ep.episode_id in wanted), None), None


def _field(name: str, text: str) -> str:
    lines = str(text).splitlines() or [""]
    head = f"{name:<13} {lines[0]}"
    return "\n".join([head, *(" " * 14 + line for line in lines[1:])])


def _cut(text: str | None, full: bool) -> str:
    if text is None:
        return "-"
    lines = text.splitlines()
    if full or len(lines) <= SHORT_LINES:
        return text
    return "\n".join([*lines[:SHORT_LINES], f"... ({len(lines) - SHORT_LINES} more lines)"])


def _compact(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 200 else json.dumps(value, ensure_ascii=False, sort_keys=True, indent=1)


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() and abs(value) >= 2 else f"{value:.3f}"
