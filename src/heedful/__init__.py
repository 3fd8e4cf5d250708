"""heedful: measure whether embodied agents actually follow instructions.

Importing this package is cheap and has no side effects; suites, agents and simulators load lazily.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("heedful")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
