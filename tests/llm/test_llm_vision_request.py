"""The llm agent in the visual condition sends the state's PNG as an OpenAI image content part.

No vision-language model runs here, so the server is `FakeOpenAIServer`, a recording test double of an
OpenAI-compatible server: the test checks what reaches the wire, not what a model makes of it.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from llm_doubles import FakeOpenAIServer

from heedful.api import evaluate
from heedful.cli import main
from heedful.llm.request import ChatRequest, Sampling, cache_key
from heedful.runner import load_run
from heedful.suites.decisions.model import DecisionEpisode
from heedful.suites.decisions.suite import SUITE

PREFIX = "data:image/png;base64,"


@pytest.fixture(scope="module")
def image_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("vision") / "data"
    config = ["object_anchors=2", "action_anchors=2", "atomic_families=8", "multi_families=1", "visual_families=3"]
    sets = [item for c in config for item in ("--set", c)]
    assert main(["generate", "decisions", "--seed", "4", "--out", str(out), "--images", "--no-progress", *sets]) == 0
    return out


def _episode_of(text: str, episodes: list[DecisionEpisode]) -> DecisionEpisode:
    """The episode whose instruction and candidates the prompt text shows."""
    shows = [f"Instruction: {ep.instruction}\n" for ep in episodes]
    matches = [
        ep
        for ep, instruction in zip(episodes, shows, strict=True)
        if instruction in text and all(f"- {c.id}: {c.text}\n" in text for c in ep.candidates)
    ]
    assert len({ep.image for ep in matches}) == 1, "the prompt identifies one state"
    return matches[0]


def _user_parts(request: dict[str, Any]) -> list[dict[str, Any]]:
    user = request["messages"][-1]
    assert user["role"] == "user" and isinstance(user["content"], list)
    return list(user["content"])


@pytest.mark.render
def test_each_request_carries_its_episodes_png_and_no_positions(image_dataset: Path, tmp_path: Path) -> None:
    episodes = [ep for ep in SUITE.load_dataset(image_dataset) if ep.visual]
    args = {"base_url": "", "model": "a-vision-model", "cache_path": str(tmp_path / "cache.sqlite")}
    with FakeOpenAIServer() as server:  # test double: answers '{"decision": "a1"}' to everything
        args["base_url"] = server.url
        run = evaluate(suite="decisions", agent="llm", agent_args=args, out=tmp_path / "run", dataset=image_dataset,
                       options={"condition": "visual"}, progress=False)  # fmt: skip
        assert len(server.requests) == len(episodes) == 12
        for request in server.requests:
            image, text = _user_parts(request)
            assert image["type"] == "image_url" and image["image_url"]["url"].startswith(PREFIX)
            assert text["type"] == "text" and "(x=" not in text["text"]
            episode = _episode_of(text["text"], episodes)
            sent = base64.b64decode(image["image_url"]["url"][len(PREFIX) :])
            assert sent == (image_dataset / str(episode.image)).read_bytes()
        # a second run is answered from the cache, whose keys cover the image bytes
        evaluate(suite="decisions", agent="llm", agent_args=args, out=tmp_path / "again", dataset=image_dataset,
                 options={"condition": "visual"}, progress=False)  # fmt: skip
        assert len(server.requests) == 12
    _, records = load_run(run.run_dir)
    assert {r.status.value for r in records} <= {"ok", "parse_error"}


def test_the_cache_key_covers_the_image_bytes() -> None:
    identity = {"kind": "openai", "base_url": "http://127.0.0.1:1/v1", "model": "vlm"}
    base = ChatRequest(messages=(("system", "s"), ("user", "u")), sampling=Sampling(seed=1))
    one = ChatRequest(messages=base.messages, sampling=base.sampling, images=(b"\x89PNG one",))
    two = ChatRequest(messages=base.messages, sampling=base.sampling, images=(b"\x89PNG two",))
    assert len({cache_key(identity, r) for r in (base, one, two)}) == 3
    assert base.body("vlm")["messages"][-1] == {"role": "user", "content": "u"}  # text-only requests unchanged
    parts = one.body("vlm")["messages"][-1]["content"]
    assert parts[1] == {"type": "text", "text": "u"}
    assert base64.b64decode(parts[0]["image_url"]["url"][len(PREFIX) :]) == b"\x89PNG one"
