"""Every subcommand by name, with its one-line help and where its parser is built.

`heedful --help` lists the commands from this table alone; only the command being run builds its full
parser (importing what its flags need: suites' option models, agent flags), so the start-up of one command
never pays for the others.
"""

from __future__ import annotations

import importlib
from typing import Any, NamedTuple


class Command(NamedTuple):  # not a dataclass: importing dataclasses costs the start-up 14 ms
    name: str
    help: str
    register: str  # "module:function" that adds the command's full parser: function(subparsers, formatter)

    def add_full_parser(self, sub: Any, formatter: Any) -> None:
        module, _, function = self.register.partition(":")
        getattr(importlib.import_module(module), function)(sub, formatter)


_CLI = "heedful.cli."
COMMANDS = (
    Command("generate", "generate a benchmark dataset as files", _CLI + "commands:add_generate"),
    Command("run", "evaluate an agent on a suite (resumable)", _CLI + "commands:add_run"),
    Command(
        "report",
        "metrics of a run with confidence intervals (table, json, csv, markdown, latex)",
        _CLI + "results_commands:add_report",
    ),
    Command(
        "plot",
        "the suite's main figure of one or more runs, with error bars (pdf, svg, png)",
        _CLI + "results_commands:add_plot",
    ),
    Command("export", "write a run or a dataset as JSONL or Parquet", _CLI + "results_commands:add_export"),
    Command("compare", "paired comparison of two runs on the same dataset", _CLI + "results_commands:add_compare"),
    Command("schema", "print the JSON Schema of a suite's episode lines", _CLI + "results_commands:add_schema"),
    Command("list", "list suites and agents, or a suite's tasks", _CLI + "results_commands:add_list"),
    Command(
        "replay",
        "animate a household episode or make a tabletop trial's video (GIF, MP4 or PNG)",
        _CLI + "results_commands:add_replay",
    ),
    Command(
        "show", "print one episode of a run: input, gold, prediction, raw text, scores", _CLI + "show_command:add_show"
    ),
    Command(
        "view",
        "write a static site of runs: metric tables, comparisons, an episode browser with replays",
        _CLI + "view_command:add_view",
    ),
    Command(
        "merge", "join the shard runs of one run (--shard I/N) into one run directory", _CLI + "show_command:add_merge"
    ),
    Command("entropy", "scene entropy H(T | S) of a task set", _CLI + "tabletop_commands:add_entropy"),
    Command(
        "demos",
        "write expert demonstrations as HDF5 (LIBERO / robomimic layout) or a LeRobot dataset",
        _CLI + "tabletop_commands:add_demos",
    ),
    Command(
        "train",
        "train a learned tabletop baseline (behaviour cloning) on the demos",
        _CLI + "tabletop_commands:add_train",
    ),
    Command("serve", "serve a tabletop agent over openpi's websocket policy protocol", _CLI + "serve:add_serve"),
    Command("check", "check that a suite or an agent keeps heedful's contract", _CLI + "check_commands:add_check"),
    Command(
        "sweep",
        "run a matrix of agents x suites x seeds x options as one resumable job; one table of all its runs",
        _CLI + "sweep_command:add_sweep",
    ),
)
BY_NAME = {command.name: command for command in COMMANDS}


def command_help(name: str) -> str:
    """The one-line help of command `name` (each full parser uses it, so the two listings never differ)."""
    return BY_NAME[name].help
