"""A remote policy under `--reinstruct` (issue 42): the new words travel on the wire at the switch, and the served
oracle (told the switch through heedful/episode) re-plans and does the new task."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from heedful.api import evaluate
from heedful.remote.mirror import MirrorPolicy
from heedful.remote.server import PolicyServer
from heedful.runner import load_run

pytestmark = pytest.mark.filterwarnings(r"ignore:connect\(\) must be used as a context manager:DeprecationWarning")


class ListeningMirror(MirrorPolicy):
    """The served oracle, keeping every prompt a request carried."""

    def __init__(self) -> None:
        super().__init__("oracle")
        self.prompts: list[str] = []

    def infer(self, obs: dict[str, Any]) -> dict[str, Any]:
        self.prompts.append(str(obs.get("prompt")))
        return super().infer(obs)


def test_a_served_oracle_receives_the_new_words_and_does_the_new_task(tmp_path: Path) -> None:
    policy = ListeningMirror()
    options = {"level": ["L0"], "scene": [1], "trials": 1, "reinstruct": "at=0.25"}
    with PolicyServer(policy, port=0) as server:
        evaluate(
            suite="tabletop",
            agent="remote",
            agent_args={"url": server.url},
            out=tmp_path / "run",
            options=options,
            limit=1,
            order="file",
            progress=False,
        )
    (record,) = load_run(tmp_path / "run")[1]
    old, new = record.inputs["instruction"], record.inputs["reinstruct_instruction"]
    assert old != new and policy.prompts[0] == old and policy.prompts[-1] == new
    first_new = policy.prompts.index(new)
    assert set(policy.prompts[:first_new]) == {old} and set(policy.prompts[first_new:]) == {new}
    s = record.scores
    assert (s["switched"], s["complete"], s["kept_old_task"]) == (1.0, 1.0, 0.0)
