"""The `heedful` command line: a thin layer that parses arguments and calls the Python API."""

from heedful.cli.main import main

__all__ = ["main"]
