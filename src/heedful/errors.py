"""A small hierarchy of typed errors. Each message says what was wrong and how to fix it."""

from __future__ import annotations


class HeedfulError(Exception):
    """Base class of every error heedful raises on purpose."""


class ConfigError(HeedfulError):
    """A configuration value, option or argument is invalid."""


class UnknownNameError(ConfigError):
    """A registry lookup missed; the message carries a did-you-mean suggestion where one exists."""


class UnknownDeclarationError(ConfigError):
    """An agent class declares an attribute close to one of `heedful.capabilities`' declarations but not it (a
    misspelling such as `concurency = 4`, which would otherwise be silently ignored)."""


class RenderDeviceError(ConfigError):
    """An EGL device a run was told to render on (--egl-devices) does not exist, or cannot be chosen here."""


class DatasetError(HeedfulError):
    """A dataset file is missing, malformed or inconsistent."""


class GenerationError(HeedfulError):
    """A generator ran out of tries before it found a valid sample."""


class RunError(HeedfulError):
    """A run directory is missing, inconsistent with the request, or cannot be resumed."""


class RunAbortedError(RunError):
    """A run stopped itself because its first episodes all crashed with one error (the run is resumable)."""


class SchemaVersionError(RunError):
    """A run's manifest or one of its records carries a schema version this heedful does not read (a newer heedful
    wrote it), or none (heedful did not write it); the message names the file, the version found and those read."""


class TamperedError(RunError):
    """A run's records or manifest changed after they were written (their stored digests no longer match)."""


class AgentInterfaceError(HeedfulError):
    """The agent's transport failed (server down, protocol error): recorded as `interface_error`, never scored."""


class AgentTimeoutError(HeedfulError):
    """The agent did not answer in time: recorded as `timeout`, never scored."""


class MissingDependencyError(HeedfulError):
    """An optional dependency is not installed; the message names the extra to install."""


class BudgetExceededError(HeedfulError):
    """A run's budget (--max-cost, --max-requests) is spent: the run stops cleanly, resumable with a larger one."""


class InvalidActionError(HeedfulError):
    """An action sent to a simulator is malformed (wrong shape, NaN, inf); the simulation was not touched."""


class SimulationError(HeedfulError):
    """The physics became unstable (non-finite state, runaway velocities); the last good state was restored."""
