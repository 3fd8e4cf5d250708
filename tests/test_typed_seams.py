"""Where a typed seam narrows what it is given (issue 41), what does not fit is a typed error, not an AttributeError."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray
from pydantic import BaseModel

from heedful.api import select
from heedful.dataset_cache import episodes_of
from heedful.errors import ConfigError, DatasetError
from heedful.remote.served_controller import ControllerPolicy


class Line(BaseModel):
    episode_id: str
    split: str = "test"


class Unsplit(BaseModel):
    episode_id: str


class TwoSplits:
    name = "toy"
    splits = ("all", "train", "test")


def test_select_reads_each_episodes_split_and_names_one_without() -> None:
    lines = [Line(episode_id="a", split="train"), Line(episode_id="b")]
    assert [ep.episode_id for ep in select(TwoSplits(), lines, "test")] == ["b"]  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="episode u has no `split` field"):
        select(TwoSplits(), [Unsplit(episode_id="u")], "test")  # type: ignore[arg-type]


def test_episodes_of_checks_the_model_and_names_the_source() -> None:
    lines = [Line(episode_id="a"), Line(episode_id="b")]
    assert episodes_of(Line, lines, "here") == lines
    with pytest.raises(DatasetError, match="here: a Unsplit where Line episodes were expected"):
        episodes_of(Line, [*lines, Unsplit(episode_id="u")], "here")


class Chunks:
    """A controller without a `name` (the server names it by its --agent name)."""

    def reset(self) -> None:
        pass

    def set_instruction(self, instruction: str) -> None:
        pass

    def predict(self, observation: dict[str, Any]) -> NDArray[np.float64]:
        return np.zeros((2, 7))


class PredictOnly:
    def predict(self, observation: dict[str, Any]) -> NDArray[np.float64]:
        return np.zeros((2, 7))


def test_a_served_controller_needs_reset_and_set_instruction_but_no_name() -> None:
    policy = ControllerPolicy(Chunks(), "chunks")  # type: ignore[arg-type]
    assert policy.infer({"prompt": "go"})["actions"].shape == (2, 7)
    with pytest.raises(ConfigError, match="without reset\\(\\) or set_instruction\\(\\)"):
        ControllerPolicy(PredictOnly(), "predict-only")  # type: ignore[arg-type]
