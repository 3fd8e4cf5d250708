"""The household suite's perception conditions as run options (`heedful run household --perception ...`).

- `perception="oracle"` (the default): objects enter the semantic map exactly as they are.
- `perception="noisy"`: a SIMULATED stand-in for learned segmentation (`sims.household.perception`):
  per-instance misses, look-alike confusions and phantom objects on receptacles, at the rates
  `miss_rate`, `false_positive_rate` and `confusion_rate` (defaults in `NoiseRates`).

The detector of an episode is drawn from the episode's rollout seed (derived from the run seed and the
episode id), so a noisy episode is byte-identical serial or in a process pool. Only what enters the agent's
semantic map changes: scoring and the oracle's privileged plan read the true state, and L_oracle for SPL
stays the oracle's path length under oracle perception (as in the paper's Table 6).
"""

from __future__ import annotations

from typing import Any

from heedful.errors import ConfigError
from heedful.registry import suggest
from heedful.seeding import derive_rng
from heedful.sims.household.perception import NOISE_FIELDS, Detector, NoiseRates, noise_rates
from heedful.suites.household.model import HouseholdEpisode
from heedful.suites.household.runtime import TaskEnv

PERCEPTIONS = ("oracle", "noisy")
DETECTORS = ("simulated",)
"""Detector models of noisy perception: only the simulated error model so far (no learned segmenter)."""


def check_perception_options(options: dict[str, Any]) -> None:
    """Raise ConfigError for an unknown perception or detector, a rate outside [0, 1], or noise options without
    noisy perception."""
    perception = options.get("perception", "oracle")
    if perception not in PERCEPTIONS:
        raise ConfigError(
            f"unknown perception {perception!r}{suggest(str(perception), list(PERCEPTIONS))}; "
            f"choose one of {', '.join(PERCEPTIONS)}"
        )
    given = [key for key in ("detector", *NOISE_FIELDS) if key in options]
    if given and perception != "noisy":
        raise ConfigError(f"{given[0]} applies to noisy perception only; add perception=noisy (--perception noisy)")
    detector = options.get("detector", DETECTORS[0])
    if detector not in DETECTORS:
        raise ConfigError(f"unknown detector {detector!r}; noisy perception has only {', '.join(DETECTORS)}")
    for key in NOISE_FIELDS:
        value = options.get(key, 0.0)
        # (a NaN fails the range test too)
        if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= float(value) <= 1.0:
            raise ConfigError(f"{key} must be a number between 0 and 1, got {value!r}")


def prepare_options(options: dict[str, Any]) -> dict[str, Any]:
    """Options with the perception condition spelled out (and every noise rate under noisy perception), so
    that the run's manifest records the condition."""
    rates = rates_of(options)
    if rates is None:
        return {**options, "perception": "oracle"}
    return {**options, "detector": DETECTORS[0], **{key: getattr(rates, key) for key in NOISE_FIELDS}}


def rates_of(options: dict[str, Any]) -> NoiseRates | None:
    """The noise rates of a run, or None for oracle perception."""
    return noise_rates(options) if options.get("perception") == "noisy" else None


def detector_for(episode: HouseholdEpisode, options: dict[str, Any], seed: int) -> Detector | None:
    """The episode's simulated detector under `options` (None: oracle perception)."""
    rates = rates_of(options)
    if rates is None:
        return None
    return Detector.draw(rates, episode.house, derive_rng(seed, "perception", episode.episode_id))


def record_fields(env: TaskEnv, scene: HouseholdEpisode | None = None) -> dict[str, Any]:
    """`{"perception": ...}` for a noisy episode's record (what the detector got wrong), else nothing. `scene`: the
    episode whose target it reports when `env` ran with other words (`heedful.suites.household.arms`)."""
    detector = env.map.detector
    if detector is None:
        return {}
    episode = env.episode if scene is None else scene
    return {"perception": detector.summary(episode.house, episode.target_category)}


def label(options: dict[str, Any]) -> str:
    """The report header's perception part."""
    rates = rates_of(options)
    if rates is None:
        return " | perception oracle"
    return f" | perception noisy (simulated segmentation: {rates.describe()})"
