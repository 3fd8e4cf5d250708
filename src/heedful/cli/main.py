"""Entry point: builds the parser, dispatches to commands, turns typed errors into one-line messages."""

from __future__ import annotations

import argparse
import sqlite3
import sys
from collections.abc import Sequence
from typing import Any

from heedful.cli.command_table import COMMANDS
from heedful.cli.parser import CliUsageError, Parser
from heedful.errors import HeedfulError
from heedful.signals import sigterm_as_interrupt

DESCRIPTION = """\
heedful measures whether embodied agents actually follow instructions.

typical session:
  heedful generate decisions --out data/decisions          # the benchmark, as files
  heedful run decisions --agent oracle --out runs/oracle    # evaluate an agent (resumable)
  heedful report runs/oracle                                # metrics with 95% CIs
  heedful compare runs/a runs/b                             # paired differences, McNemar
  heedful report runs/oracle --format latex > table.tex     # paper tables (also markdown, csv)
  heedful plot runs/a runs/b --out fig.pdf                  # the suite's figure, runs side by side
"""


class _Formatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """Keeps the description's line breaks and shows defaults."""


class _Version(argparse.Action):
    """`--version`, reading the installed version only when asked (importlib.metadata costs start-up time)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show heedful's version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        import heedful

        print(f"heedful {heedful.__version__}")  # on stdout, as argparse's own version action
        parser.exit()


def build_parser(argv: Sequence[str] | None = None) -> tuple[Parser, dict[str, Parser]]:
    """The top-level parser and its subcommand parsers by name.

    Only the command `argv` names (its first word) gets its full parser; the others are listed with their help
    only, which is all `heedful --help` shows. Without `argv`, every command's full parser is built.
    """
    given = None if argv is None else list(argv)
    chosen = None if given is None else (given[0] if given and not given[0].startswith("-") else "")
    parser = Parser(prog="heedful", description=DESCRIPTION, formatter_class=_Formatter)
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    sub.required = True
    for command in COMMANDS:
        if chosen is None or command.name == chosen:
            command.add_full_parser(sub, _Formatter)
        else:
            sub.add_parser(command.name, help=command.help)
    return parser, dict(sub.choices)


INTERRUPTED = {
    "run": "finished records are kept; continue with the same command and --resume",
    "sweep": "finished cells and records are kept; run the same sweep command again to continue",
    "generate": "nothing was written (a dataset is written whole or not at all); run it again",
    "merge": "nothing was written (the merged run is written whole or not at all); run it again",
    "view": "the site was not changed (it is written whole or not at all); run it again",
    "train": "the checkpoints written are kept; the same command with the same --out resumes",
}
"""What each command that writes keeps when Ctrl-C or SIGTERM stops it (the others just say they were interrupted)."""


def _interrupted_line(command: str | None) -> str:
    keeps = INTERRUPTED.get(command or "")
    head = f"heedful {command}: interrupted" if command else "heedful: interrupted"
    return f"{head}; {keeps}" if keeps else head


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (heedful.outcome: 0 ok, 2 usage or input error, 3 budget,
    4 unscored episodes, 5 incomplete, 6 aborted, 130 interrupted; docs/exit-codes.md)."""
    given = list(sys.argv[1:] if argv is None else argv)
    command = given[0] if given and not given[0].startswith("-") else None
    try:
        with sigterm_as_interrupt():
            return _main(given)
    except KeyboardInterrupt:
        print(_interrupted_line(command), file=sys.stderr)
        return 130


def _main(given: list[str]) -> int:
    try:
        second = given[1] if len(given) > 1 else ""
        if given[:1] == ["run"] and second.startswith("-") and second not in ("-h", "--help"):
            # each suite has its own flags, so the suite comes first
            from heedful.suites.registry import SUITES

            raise CliUsageError(
                f"heedful run: error: name the suite first: heedful run SUITE --agent NAME ... "
                f"(suites: {', '.join(SUITES.names())})"
            )
        parser, subcommands = build_parser(given)
        args, extras = parser.parse_known_args(given)
        if extras:  # let the subcommand's parser name the option, so its own options can be suggested
            usage = getattr(args, "usage_parser", subcommands[args.command])  # `run SUITE` has its own parser
            usage.error(f"unrecognized arguments: {' '.join(extras)}")
        return int(args.handler(args) or 0)
    except CliUsageError as exc:
        print(f"{exc}", file=sys.stderr)
        return 2
    except HeedfulError as exc:
        from heedful.redact import redact

        print(f"heedful: error: {redact(str(exc))}", file=sys.stderr)
        return 2
    except ModuleNotFoundError as exc:  # an optional extra missing where a command imports it: say what to install
        from heedful.extras import requirement_for

        requirement = requirement_for(exc.name)
        if requirement is None:
            raise  # not an optional module: a bug, whose traceback is wanted
        print(
            f"heedful: error: this needs {requirement.module} ({requirement.purpose}), which is not installed: "
            f"{requirement.install_line()}",
            file=sys.stderr,
        )
        return 2
    except BrokenPipeError:  # `heedful report RUN | head`
        return 0
    except (FileExistsError, NotADirectoryError) as exc:  # `--out FILE/x`: a file stands where a directory must
        print(
            f"heedful: error: {exc.filename} is a file where a directory is needed; choose another path",
            file=sys.stderr,
        )
        return 2
    except OSError as exc:  # a full disk, no permission: the environment, not a bug
        where = f" {exc.filename}" if exc.filename else ""
        print(
            f"heedful: error:{where}: {exc.strerror or exc}; check the path, its permissions and free space",
            file=sys.stderr,
        )
        return 2
    except sqlite3.Error as exc:
        print(f"heedful: error: a run's record store failed ({exc}); finished records are kept", file=sys.stderr)
        return 2
    except UnicodeError as exc:
        print(f"heedful: error: a file is not UTF-8 text ({exc})", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
