"""Seed derivation: every random choice draws from a generator derived from a root seed and stable names.

Using a cryptographic hash (not Python's salted `hash`) keeps derived seeds identical across processes,
machines and Python versions, so an episode is the same whether it runs first, last, alone or in a pool.
"""

from __future__ import annotations

import hashlib

import numpy as np


def derive_seed(root: int, *names: str | int) -> int:
    """Return a 63-bit seed derived from `root` and a path of names."""
    text = "/".join([str(root), *map(str, names)])
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def derive_rng(root: int, *names: str | int) -> np.random.Generator:
    """Return a numpy Generator seeded by `derive_seed(root, *names)`."""
    return np.random.default_rng(derive_seed(root, *names))


def stable_hash(text: str, modulo: int) -> int:
    """A process-independent hash of `text` reduced modulo `modulo`."""
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % modulo


def episode_token(seed: int) -> str:
    """The opaque name an agent sees for one episode of one run, from the seed the agent is shown: the same on every
    backend, different in every run seed, and without the dataset's id, which spells out the family and the role
    (`obj-19-f03-change_preserve`). The record keeps the real id. Household and tabletop show the episode's derived
    seed (`derive_seed(run seed, episode id)`), which anyone can recompute from guessable ids; decisions shows one
    derived from the run seed and the words shown (`suites.decisions.observation.shown_seed`)."""
    return "ep-" + hashlib.sha256(f"episode-token/{seed}".encode()).hexdigest()[:12]
