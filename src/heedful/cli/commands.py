"""The subcommands. Each handler only parses its arguments and calls the Python API.

This module holds generate and run; the others live in one module per command group, listed with their
one-line help in `command_table.COMMANDS`.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from heedful.cli.command_table import command_help
from heedful.cli.common import BackendNames, LazyProgress, add_max_errors, suite_arg
from heedful.cli.llm_args import add_llm_args, llm_agent_args
from heedful.cli.parser import CliUsageError, Parser, key_values
from heedful.cli.remote_args import add_remote_args, pooled_agent, remote_agent_args
from heedful.cli.suite_flags import add_suite_flags, suite_options

if TYPE_CHECKING:
    from heedful.suites.base import Suite

# --- generate


def add_generate(sub: Any, formatter: Any) -> None:
    p = sub.add_parser(
        "generate",
        formatter_class=formatter,
        help=command_help("generate"),
        description=(
            "Generate a suite's frozen, seeded episodes into DIR/episodes.jsonl and DIR/dataset.json "
            "(counts and a content hash). The same seed always gives byte-identical files. decisions --images also "
            "renders the visual subset's states to DIR/images/<anchor>.png, named (with their sha256) in the "
            "episode lines, for `heedful run decisions --condition visual`."
        ),
    )
    suite_arg(p)
    p.add_argument("--seed", type=int, default=0, help="generation seed")
    p.add_argument("--out", type=Path, required=True, help="output directory (must be empty or new)")
    p.add_argument(
        "--force",
        action="store_true",
        help="replace a non-empty --out (runs made on the old dataset can then no longer resume)",
    )
    p.add_argument(
        "--set",
        dest="config",
        action="append",
        metavar="KEY=VALUE",
        help="override a generation setting, e.g. --set atomic_families=200; decisions: --set held_out_wording=false "
        "words the test split like train (repeatable)",
    )
    p.add_argument(
        "--images",
        action="store_true",
        help="decisions: render each visual-subset state into DIR/images/ for `run --condition visual` "
        "(needs heedful[tabletop])",
    )
    p.add_argument("--image-size", type=int, default=448, help="decisions: image width and height with --images")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.set_defaults(handler=cmd_generate)


def cmd_generate(args: argparse.Namespace) -> int:
    from heedful.staging import staged_directory
    from heedful.suites.registry import get_suite

    suite = get_suite(args.suite)
    config = key_values(args.config, "--set")
    if args.images:
        from heedful.api import image_renderer

        render = image_renderer(suite, size=args.image_size)  # checks before generating anything
    with staged_directory(args.out, force=args.force) as staging:  # all files or none, nothing half-written
        progress = LazyProgress(not args.no_progress, "anchor", f"generate {args.suite}")
        try:
            episodes = suite.generate(args.seed, config, progress=progress)
        finally:
            progress.close()
        if args.images:
            bar = LazyProgress(not args.no_progress, "image", f"render {args.suite}")
            try:
                episodes = render(episodes, staging, progress=bar)
            finally:
                bar.close()
        summary = suite.save_dataset(episodes, staging, {"seed": args.seed, "config": config})
    counts = summary["counts"]
    groups = f" in {counts['families']} families" if "families" in counts else ""
    print(f"wrote {counts['instances']} episodes{groups} to {args.out}")
    print(f"content hash {summary['content_hash']}")
    return 0


# --- run


class SuiteRunParser(Parser):
    """The parser of `heedful run SUITE`. The suite's own flags (from its run-options model) and its splits are
    added when the suite is chosen, so `heedful run decisions --help` shows only decisions' flags and
    `heedful --help` imports no suite."""

    suite_name = ""
    _completed = False

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        if not self._completed:
            self._completed = True
            from heedful.suites.registry import get_suite

            suite = get_suite(self.suite_name)
            self.add_suite_arguments(suite)
            self.set_defaults(resolved_suite=suite)  # looked up once: `heedful run` hands it to api.evaluate
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:
        """An unknown option that another suite has is named as that suite's (`run decisions --level`)."""
        match = re.search(r"unrecognized arguments: (--[\w-]+)", message)
        owners = _suites_with_flag(match.group(1), self.suite_name) if match else []
        if match and owners:
            raise CliUsageError(
                f"{self.prog}: error: unknown option {match.group(1)}: it is a run option of {' and '.join(owners)}, "
                f"not of {self.suite_name} (see `{self.prog} --help`)"
            )
        super().error(message)

    def add_suite_arguments(self, suite: Suite) -> None:
        """The suite's `--split` choices and its run-option flags (ConfigError when a flag cannot be built)."""
        # a split also selects its parts, as api.select does (household: val = val_seen + val_unseen)
        parts = {s: [p for p in suite.splits if p.startswith(f"{s}_")] for s in suite.splits}
        joined = "; ".join(f"{s} selects {' and '.join(ps)}" for s, ps in parts.items() if ps)
        self.add_argument(
            "--split",
            choices=list(suite.splits),
            default=suite.splits[0],
            help="episodes to run" + (f" ({joined})" if joined else ""),
        )
        add_suite_flags(self, suite.run_options, self.suite_name)
        self.set_defaults(run_options=suite.run_options, run_tag=suite.run_tag)


def _suites_with_flag(flag: str, but: str) -> list[str]:
    """The other registered suites whose run options include `flag` (imports them: an error path only)."""
    from heedful.suites.registry import SUITES, get_suite

    owners = []
    for name in SUITES.names():
        if name == but:
            continue
        try:
            probe = argparse.ArgumentParser(add_help=False)
            add_suite_flags(probe, get_suite(name).run_options, name)
        except Exception:  # a broken third-party suite must not hide the user's real mistake
            continue
        if flag in probe._option_string_actions:
            owners.append(name)
    return owners


def add_run(sub: Any, formatter: Any) -> None:
    from heedful.suites.registry import SUITES

    p = sub.add_parser(
        "run",
        formatter_class=formatter,
        help=command_help("run"),
        description=(
            "Roll every episode out with an agent and store one record per episode in the run directory as it "
            "finishes. A killed or interrupted run continues with --resume, losing and duplicating nothing. "
            "Without --dataset the suite's default benchmark is generated in memory from --seed. "
            "Each suite has its own options: `heedful run SUITE --help` lists them."
        ),
    )
    suites = p.add_subparsers(dest="suite", metavar="SUITE", parser_class=SuiteRunParser)
    suites.required = True
    for name in SUITES.names():
        q = suites.add_parser(
            name,
            formatter_class=formatter,
            help=f"evaluate an agent on {name}",
            description=f"Evaluate an agent on the {name} suite; see `heedful run --help` for how runs work.",
        )
        q.suite_name = name
        add_run_arguments(q)
        q.set_defaults(handler=cmd_run, usage_parser=q)


def add_run_arguments(p: Any) -> None:
    """The flags every suite's run has."""
    p.add_argument("--agent", required=True, help="agent name (`heedful list SUITE` says what each does)")
    p.add_argument(
        "--arms",
        metavar="ARM,ARM",
        help="run these instruction arms (given, empty, shuffled, other) as sibling runs OUT/ARM of one job; "
        "`heedful report OUT` prints the language-dependence table (docs/language-dependence.md)",
    )
    p.add_argument("--agent-arg", action="append", metavar="KEY=VALUE", help="agent keyword argument (repeatable)")
    p.add_argument("--dataset", type=Path, help="dataset directory from `heedful generate` or your own")
    p.add_argument(
        "--no-verify",
        action="store_true",
        help="load a --dataset whose episodes.jsonl no longer matches the content hash in its dataset.json "
        "(a deliberate edit; every episode is still validated, and the run records the new hash)",
    )
    p.add_argument("--seed", type=int, default=0, help="run seed (and generation seed without --dataset)")
    p.add_argument(
        "--limit",
        type=int,
        help="run N episodes: a seeded sample spread over the suite's groups in proportion (decisions: whole "
        "families by category x split; household: split x task type x clarity; tabletop: scene x level); "
        "a resume may raise N and keeps the episodes already run",
    )
    p.add_argument(
        "--order",
        choices=["stratified", "file"],
        default="stratified",
        help="which episodes --limit takes: the stratified sample, or the first N in file order",
    )
    p.add_argument(
        "--shard",
        metavar="I/N",
        help="run only the I-th of N disjoint parts of the episodes (every N-th sampling unit, families whole), "
        "e.g. on N machines with the same command; `heedful merge` joins the N run directories into one run",
    )
    p.add_argument("--workers", type=int, default=1, help="local worker processes (with --backend ray: Ray actors)")
    p.add_argument(
        "--batch",
        type=int,
        default=1,
        metavar="K",
        help="step K episodes of each worker in lockstep, one batched policy call per step for all of them (a "
        "controller with predict_batch, e.g. bc; the records are those of an unbatched run)",
    )
    p.add_argument(
        "--egl-devices",
        metavar="0,1,...",
        help="with MUJOCO_GL=egl: render worker i (Ray actor i) on EGL device i mod N, e.g. 0,1,2,3 on a 4-GPU node "
        "(default: HEEDFUL_EGL_DEVICES, else MuJoCo's choice); the manifest records each worker's renderer",
    )
    p.add_argument(
        "--backend",
        choices=BackendNames(),  # the registry's names, read lazily
        default="local",
        help="where episodes run: local (this process, or --workers processes) or ray (--workers actors on a Ray "
        "cluster; pip install 'heedful[ray]')",
    )
    p.add_argument(
        "--address",
        help="with --backend ray: the cluster (auto, HOST:6379, ray://HOST:10001); default: start Ray on this machine",
    )
    p.add_argument(
        "--resources",
        metavar="JSON",
        help="""with --backend ray: what each worker reserves, e.g. '{"CPU": 1, "GPU": 0.25}' (default one CPU)""",
    )
    p.add_argument("--out", type=Path, help="run directory (default runs/SUITE-AGENT[-TAGS]-seedS)")
    p.add_argument("--resume", action="store_true", help="continue the run in --out")
    p.add_argument(
        "--audit-stateless",
        type=int,
        default=0,
        metavar="K",
        help="after the run, replay K of its episodes on a fresh agent in another order (in this process) and flag "
        "the manifest and every report when an answer changes: the agent keeps state between episodes",
    )
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    add_max_errors(p)
    add_llm_args(p)
    add_remote_args(p)


def _agent_tag(agent_args: dict[str, Any]) -> str:
    """A default run directory's part naming the agent's arguments, so that two runs of one agent with other
    arguments (--constrain, a model) never land in one directory: "-constrained", then a short hash of the rest."""
    import hashlib
    import json

    tag = ""
    if "constrain" in agent_args:
        tag = "-constrained" if agent_args["constrain"] else "-unconstrained"
    rest = {k: v for k, v in agent_args.items() if k != "constrain"}
    if rest:
        text = json.dumps(rest, sort_keys=True, default=str)
        tag += "-" + hashlib.sha256(text.encode()).hexdigest()[:8]
    return tag


def cmd_run(args: argparse.Namespace) -> int:
    from heedful.agents.registry import agent_class
    from heedful.api import evaluate
    from heedful.errors import BudgetExceededError, RunAbortedError
    from heedful.outcome import EXIT_ABORTED, EXIT_BUDGET, parse_max_errors
    from heedful.runner.verdict import run_verdict

    if args.arms:  # one run per instruction arm, as one job
        from heedful.cli.arms_command import run_arms

        return run_arms(args, cmd_run)
    max_errors = parse_max_errors(args.max_errors)
    given = suite_options(args, args.run_options, Path("."))
    agent_args = key_values(args.agent_arg, "--agent-arg")
    args.agent = pooled_agent(args, args.agent)
    cls = agent_class(args.agent, args.suite)
    agent_args = remote_agent_args(args, cls, args.agent, llm_agent_args(args, cls, args.agent, agent_args))
    shard = f"-shard{args.shard.replace('/', 'of')}" if args.shard else ""
    arm = f"-instruction-{given['instruction']}" if given.get("instruction") else ""
    arm += f"-reinstruct-{str(given['reinstruct']).replace('=', '')}" if given.get("reinstruct") else ""
    tags = f"{args.run_tag(given)}{arm}{_agent_tag(agent_args)}"
    out = args.out or Path("runs") / f"{args.suite}-{args.agent}{tags}-seed{args.seed}{shard}"
    try:
        result = evaluate(
            suite=args.suite,
            agent=args.agent,
            agent_args=agent_args,
            out=out,
            dataset=args.dataset,
            seed=args.seed,
            split=args.split,
            limit=args.limit,
            order=args.order,
            shard=args.shard,
            options=suite_options(args, args.run_options, out),
            workers=args.workers,
            resume=args.resume,
            progress=not args.no_progress,
            verify=not args.no_verify,
            backend=args.backend,
            address=args.address,
            resources=args.resources,
            audit_stateless=args.audit_stateless,
            batch=args.batch,
            egl_devices=args.egl_devices,
            resolved=(args.resolved_suite, cls),
        )
    except BudgetExceededError as exc:
        print(f"heedful: run {out} stopped: {exc}", file=sys.stderr)
        print(f"heedful: rerun the same command with --resume --out {out} and a larger budget", file=sys.stderr)
        return EXIT_BUDGET
    except RunAbortedError as exc:
        print(f"heedful: run {out} stopped: {exc}", file=sys.stderr)
        print(f"heedful: fix the cause, then rerun the same command with --resume --out {out}", file=sys.stderr)
        return EXIT_ABORTED
    counts = ", ".join(f"{k} {v}" for k, v in sorted(result.counts.items()))
    print(f"run {out}: {counts}")
    audit = result.manifest.stateless_audit
    if audit is not None:
        print(f"stateless audit: {audit.flag or f'the {audit.replayed} replayed answers are the same'}")
        for example in audit.examples:
            print(f"  {example}")
    print(f"report: heedful report {out}")
    found = run_verdict(out, result.manifest, max_errors)
    if found.code:
        print(f"heedful: {found.line}", file=sys.stderr)
    return found.code
