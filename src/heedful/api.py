"""The Python API behind the command line: everything `heedful` does can be done from here.

from heedful.api import evaluate, report
result = evaluate(suite="decisions", agent="oracle", out="runs/oracle")
rows, title = report("runs/oracle")
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from heedful.capabilities import Capabilities, capabilities
from heedful.errors import ConfigError, DatasetError
from heedful.protocols import AgentFactory
from heedful.results import (
    compare,
    compare_text,
    describe_run,
    pairing_line,
    plot,
    report,
    report_text,
    run_name,
)
from heedful.sampling import Order
from heedful.sims.gl_devices import check_egl_devices, parse_egl_devices

if TYPE_CHECKING:  # annotations only: importing the API starts no suite and no runner
    from heedful.runner.run import RunResult
    from heedful.suites.base import Episode, Suite

E = TypeVar("E", bound="Episode")

__all__ = [
    "check_agent_inputs",
    "check_shard",
    "compare",
    "compare_text",
    "demos",
    "describe_run",
    "entropy",
    "evaluate",
    "image_renderer",
    "load_or_generate",
    "pairing_line",
    "plot",
    "report",
    "report_text",
    "run_name",
    "select",
    "train",
]


def load_or_generate(
    suite: Suite, dataset: Path | None, seed: int, progress: bool = False, *, verify: bool = True
) -> tuple[Sequence[Episode], str]:
    """The suite's episodes from `dataset` (its content hash checked unless `verify` is False), or its default
    dataset for `seed` (generated once into the dataset cache, `heedful.dataset_cache`, then loaded from it);
    plus where they came from. `progress` announces a generation on stderr."""
    from heedful.dataset_cache import GENERATED, cached_dataset

    if dataset is not None:
        check_dataset_suite(suite.name, Path(dataset))
        return list(suite.load_dataset(Path(dataset), verify=verify)), str(dataset)
    episodes, _ = cached_dataset(suite, seed, announce=progress)
    return episodes, f"{GENERATED}{seed}"


def check_dataset_suite(suite: str, dataset: Path) -> None:
    """Raise DatasetError when `dataset`'s summary (dataset.json) says it belongs to another suite.

    A directory or file without a summary (episodes of one's own) is left to the suite's loader."""
    import json

    from heedful.suites.episode_files import SUMMARY_FILE

    summary = dataset / SUMMARY_FILE if dataset.is_dir() else dataset.parent / SUMMARY_FILE
    try:
        other = json.loads(summary.read_text(encoding="utf-8")).get("suite")
    except (OSError, ValueError, AttributeError):
        return
    if isinstance(other, str) and other != suite:
        raise DatasetError(
            f"{dataset} is a {other} dataset ({summary.name} says suite {other!r}), not a {suite} one: run it with "
            f"`heedful run {other} --dataset {dataset}`, or give a {suite} dataset (heedful generate {suite} --out DIR)"
        )


def check_shard(shard: str | None) -> None:
    """`I/N` with 1 <= I <= N, or None.

    Raises:
        ConfigError: anything else, naming the form.
    """
    if shard is None:
        return
    index, sep, count = shard.partition("/")
    if not (sep and index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
        raise ConfigError(f"--shard must look like I/N with 1 <= I <= N (e.g. 2/4), got {shard!r}")


def select(suite: Suite, episodes: Sequence[E], split: str) -> Sequence[E]:
    """Episodes of one of the suite's splits ("all" keeps every episode, in dataset order, as given: a cached
    dataset stays lazy, see `heedful.suites.lazy_episodes`).

    Raises:
        ConfigError: the suite has no such split, or an episode has no `split` field to select it by.
    """
    if split not in suite.splits:
        raise ConfigError(f"{suite.name} has no split {split!r}; choose one of {', '.join(suite.splits)}")
    if split == "all":
        return episodes
    return [ep for ep in episodes if split in _splits_of(suite, ep)]


def _splits_of(suite: Suite, episode: Episode) -> tuple[str, str]:
    """The episode's split and the one it is part of: household splits are val_seen, val_unseen, ...: "val" selects
    both of its parts."""
    # `split` is not in the Episode protocol: a suite with splits besides "all" gives its episodes one (Suite.splits)
    found = getattr(episode, "split", None)
    if found is None:
        raise ConfigError(f"{suite.name} has splits, but its episode {episode.episode_id} has no `split` field")
    return str(found), str(found).rsplit("_", 1)[0]


def evaluate(
    *,
    suite: str,
    agent: str,
    out: Path | str,
    agent_args: dict[str, Any] | None = None,
    dataset: Path | None = None,
    seed: int = 0,
    split: str = "all",
    limit: int | None = None,
    order: Order = "stratified",
    shard: str | None = None,
    options: dict[str, Any] | None = None,
    workers: int = 1,
    resume: bool = False,
    progress: bool = True,
    verify: bool = True,
    backend: str = "local",
    address: str | None = None,
    resources: str | dict[str, Any] | None = None,
    audit_stateless: int = 0,
    batch: int = 1,
    egl_devices: str | Sequence[int] | None = None,
    resolved: tuple[Suite, AgentFactory] | None = None,
) -> RunResult:
    """Evaluate `agent` on `suite` into the run directory `out` (see `heedful run --help`); `verify=False` loads a
    dataset whose files no longer match their recorded content hash (a deliberate edit). `backend="ray"` runs on
    `workers` Ray actors (`address`, `resources`: see `heedful.runner.run`). `audit_stateless=K` replays K episodes
    on a fresh agent in another order afterwards and records in the manifest whether any answer changed. `batch`
    steps that many episodes of each worker in lockstep on one batched policy call (`heedful.runner.lockstep`).
    `egl_devices` ("0,1,2,3") renders worker i on EGL device i mod N (`heedful.sims.gl_devices`; None reads
    HEEDFUL_EGL_DEVICES). `resolved`: the suite and the agent class that `suite` and `agent` name, when the caller
    (the command line) has looked them up already; the run then looks neither up again."""
    from heedful.agent_args import check_agent_args
    from heedful.agents.registry import agent_class
    from heedful.requirements import check_requirements
    from heedful.runner import RunSpec, run
    from heedful.suites.registry import get_suite

    if resolved is None:
        suite_obj = get_suite(suite)
        agent_cls = agent_class(agent, suite)  # fail on an unknown agent before generating anything
    else:
        suite_obj, agent_cls = resolved
    check_agent_args(agent, agent_cls, dict(agent_args or {}))  # and on its arguments' names and types
    options = dict(options or {})
    suite_obj.check_options(options)
    declared = capabilities(agent_cls)
    # a missing simulator, or a module the agent imports, stops here rather than crashing every episode
    check_requirements(
        f"{suite} --agent {agent}", (*suite_obj.requirements(options), *declared.required(agent_args or {}))
    )
    options = suite_obj.prepare_options(options, dataset)  # decisions: where the dataset's images are
    kind = declared.kind
    if kind not in suite_obj.agent_kinds:
        raise ConfigError(
            f"agent {agent} is a {kind} agent; {suite} runs {' or '.join(suite_obj.agent_kinds)} agents "
            "(see heedful.protocols; `heedful check agent SUITE/NAME` checks one)"
        )
    check_agent_inputs(declared, agent, dict(agent_args or {}), suite_obj.required_inputs(options))
    if limit is not None and limit < 1:
        raise ConfigError(f"--limit must be at least 1, got {limit}")
    if audit_stateless < 0:  # before the dataset is loaded (run() checks it again)
        raise ConfigError(f"--audit-stateless takes a number of episodes (0 or more), got {audit_stateless}")
    if order not in ("stratified", "file"):
        raise ConfigError(f"--order must be stratified or file, got {order!r}")
    check_shard(shard)
    if backend == "local":  # a missing EGL device fails before a dataset is generated (Ray actors check their own)
        check_egl_devices(parse_egl_devices(egl_devices))
    episodes, source = load_or_generate(suite_obj, dataset, seed, progress, verify=verify)
    chosen = select(suite_obj, episodes, split)
    chosen = suite_obj.episodes_for_run(chosen, options)  # tabletop: the trials of the chosen tasks
    if not chosen:
        raise ConfigError(f"no {split} episodes in {source}")
    spec = RunSpec(
        suite=suite,
        suite_version=suite_obj.version,
        dataset_hash=suite_obj.dataset_hash(chosen),
        dataset_source=source if split == "all" else f"{source} split={split}",
        agent=agent,
        agent_args=dict(agent_args or {}),
        seed=seed,
        options=options,
        limit=limit,
        order="file" if limit is None else order,  # without a limit every episode runs: no order to record
        shard=shard,
    )
    return run(
        spec,
        chosen,
        Path(out),
        workers=workers,
        resume=resume,
        progress=progress,
        train=episodes,
        backend=backend,
        address=address,
        resources=resources,
        audit_stateless=audit_stateless,
        batch=batch,
        egl_devices=egl_devices,
        resolved=(suite_obj, agent_cls),  # looked up once, above
    )


def check_agent_inputs(declared: Capabilities, agent: str, agent_args: dict[str, Any], inputs: Sequence[str]) -> None:
    """Fail before a run starts when the agent (`declared`: its class's declarations) cannot read an input the run
    shows (e.g. an image).

    An agent class may define `cannot_read(kind, agent_args) -> str | None`, the reason it cannot read that
    kind of input with those arguments; agents without it read or ignore every input.

    Raises:
        ConfigError: naming the input and the agent's reason.
    """
    cannot_read = declared.cannot_read
    for kind in inputs:
        reason = cannot_read(kind, agent_args) if cannot_read is not None else None
        if reason:
            raise ConfigError(f"agent {agent} cannot read the {kind} input this run shows: {reason}")


def image_renderer(suite: Suite, *, size: int = 448) -> Callable[..., list[Episode]]:
    """`render(episodes, out, progress=None)`: writes the suite's images into `out` and returns the episodes
    that name them (decisions: the visual subset); `progress(1, total)` is called per image.

    Checks everything first, so that `heedful generate --images` fails before it generates anything.

    Raises:
        ConfigError: the suite has no images, or `size` is out of range.
        MissingDependencyError: the renderer (mujoco, heedful[tabletop]) is not installed.
    """
    if not suite.has_images:
        raise ConfigError(f"suite {suite.name} has no images to render; drop --images")
    if not 64 <= size <= 2048:
        raise ConfigError(f"--image-size must be between 64 and 2048 pixels, got {size}")
    from heedful.sims.tabletop.deps import require_mujoco

    require_mujoco()

    def render(
        episodes: Sequence[Episode], out: Path | str, progress: Callable[[int, int], object] | None = None
    ) -> list[Episode]:
        return list(suite.attach_images(episodes, Path(out), size=size, progress=progress))

    return render


def entropy(tasks_file: Path | str | None = None, *, libero: bool = False) -> dict[str, Any]:
    """Scene entropy H(T | S) in bits with its groups: of the tabletop training set (3.782 bits), of the task
    set in `tasks_file` (JSON lines with "task" and "scene", the task-independent scene spec), or with
    `libero=True` of LIBERO's four suites and their mean."""
    from heedful.metrics.entropy import entropy_report, libero_entropies

    if libero:
        values = libero_entropies()
        return {"bits": values["mean"], "groups": [{"suite": k, "bits": v} for k, v in values.items() if k != "mean"]}
    if tasks_file is None:
        from heedful.suites.tabletop.registry import training_entropy

        return training_entropy()
    pairs = []
    path = Path(tasks_file)
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
            pairs.append((str(item["task"]), item["scene"]))
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise DatasetError(f'{path}:{lineno}: need a JSON object with "task" and "scene" ({exc})') from None
    return entropy_report(pairs)


def demos(
    out: Path | str,
    *,
    per_task: int = 50,
    cameras: bool = False,
    image_size: int = 224,
    seed: int = 0,
    tasks: Sequence[str] | None = None,
    progress: Any = None,
    format: str = "hdf5",
    repo_id: str | None = None,
    video: bool = False,
    workers: int = 1,
) -> dict[str, int]:
    """Write tabletop demonstrations (see `heedful demos --help`); resumable. `tasks` limits the training labels.

    `format` is "hdf5" (LIBERO / robomimic files) or "lerobot" (a LeRobot dataset rooted at `out`, written
    through the lerobot library; `repo_id` names it, `video` stores the cameras as video); in either format
    `workers` processes record the demos while this one writes them (the same files for any number).
    """
    from heedful.suites.tabletop.demos import DemoSettings, generate_demos
    from heedful.suites.tabletop.registry import training_task, training_tasks

    if per_task < 1 or image_size < 16:
        raise ConfigError(f"--per-task must be at least 1 and --image-size at least 16, got {per_task}, {image_size}")
    if format not in ("hdf5", "lerobot"):
        raise ConfigError(f"unknown demonstration format {format!r}; choose 'hdf5' or 'lerobot'")
    if format == "hdf5" and (repo_id is not None or video):
        raise ConfigError("--repo-id and --video apply to --format lerobot only")
    if workers < 1:
        raise ConfigError(f"--workers must be at least 1, got {workers}")
    chosen = list(training_tasks())
    if tasks:
        for label in tasks:
            training_task(label)  # an unknown label: UnknownNameError with did-you-mean
        chosen = [t for t in chosen if t.label in set(tasks)]
    settings = DemoSettings(seed=seed, per_task=per_task, cameras=cameras, image_size=image_size)
    if format == "lerobot":
        from heedful.suites.tabletop.lerobot_demos import DEFAULT_REPO_ID, generate_lerobot_demos

        name = repo_id or DEFAULT_REPO_ID
        return generate_lerobot_demos(Path(out), settings, chosen, progress, repo_id=name, video=video, workers=workers)
    return generate_demos(Path(out), settings, chosen, progress, workers=workers)


def train(
    demos: Path | str,
    out: Path | str,
    *,
    device: str = "cpu",
    progress: Any = None,
    log: Callable[[str], None] = lambda _: None,
    tasks: Sequence[str] | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Train a tabletop policy on HDF5 demos into `out` (see `heedful train --help`; `options` are the fields of
    `heedful.learning.trainer.TrainConfig`); resumes from `out`'s newest checkpoint. Returns the training summary."""
    from dataclasses import fields

    from heedful.learning.trainer import TrainConfig
    from heedful.learning.trainer import train as run_training

    known = {f.name for f in fields(TrainConfig)}
    unknown = sorted(set(options) - known)
    if unknown:
        raise ConfigError(f"unknown training options {unknown}; known: {', '.join(sorted(known))}")
    config = TrainConfig(**options, tasks=tuple(tasks or ()))
    return run_training(Path(demos), Path(out), config, device=device, progress=progress, log=log)
