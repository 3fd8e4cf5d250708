"""`heedful run household --agent reasoner|prompter` with the real SmolLM2 (embedded, and behind its own server).

Three episodes (one PnP, one S_obj, one S_hum) and short answers keep this under a minute or two: SmolLM2-135M
rarely writes the paper's "Action:" format, so most episodes end at their first question as parse errors.
With --constrain (JSON schemas, constrained decoding) its answers do parse, which takes the episodes past
their first question; a 2-question limit keeps that run short (the Reasoner's prompts are long).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from llm_doubles import CountingProxy, ServeProcess

from heedful.cli import main
from heedful.llm.server import EmbeddedServer
from heedful.records import Record, Status
from heedful.runner import load_run

pytestmark = pytest.mark.llm

THREADS = "1"  # one llama.cpp thread: two test workers each running a model on 2 cores stay at 2 threads
MODEL_THREADS = ["--agent-arg", f"threads={THREADS}"]
AGENTS = ("reasoner", "prompter")
COMMON = ["--limit", "3", "--max-tokens", "32", "--no-progress"]


def run_args(agent: str, dataset: Path, out: Path, *extra: str) -> list[str]:
    return ["run", "household", "--agent", agent, "--dataset", str(dataset), "--out", str(out), *COMMON, *extra]


def records(run_dir: Path) -> list[Record]:
    return load_run(run_dir)[1]


def deterministic(run_dir: Path) -> list[dict[str, Any]]:
    """The records but their timing and the server that answered (each record names its server)."""
    found = []
    for record in records(run_dir):
        data = record.deterministic_dict()
        info = data.get("agent_info")
        if isinstance(info, dict):
            info.pop("server", None)
        found.append(data)
    return found


@pytest.fixture(scope="module")
def household_tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Twelve household episodes (one per split and task type)."""
    out = tmp_path_factory.mktemp("household-data") / "tiny"
    config = ["houses=2", "seen_houses=1", "per_split_type=1"]
    sets = [item for pair in (("--set", c) for c in config) for item in pair]
    assert main(["generate", "household", "--seed", "5", "--out", str(out), "--no-progress", *sets]) == 0
    return out


@pytest.fixture(scope="module")
def embedded(household_tiny: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Both agents run once with the embedded SmolLM2, sharing one response cache."""
    root = tmp_path_factory.mktemp("household-embedded")
    starts = EmbeddedServer.starts
    cache = root / "cache.sqlite"
    codes = {
        agent: main(run_args(agent, household_tiny, root / agent, "--cache", str(cache), *MODEL_THREADS))
        for agent in AGENTS
    }
    return {"codes": codes, "root": root, "cache": cache, "starts": EmbeddedServer.starts - starts}


@pytest.fixture(scope="module")
def served(smollm2: Path) -> Iterator[ServeProcess]:
    server = ServeProcess("--gguf", str(smollm2), "--threads", THREADS, "--metrics")
    yield server
    assert server.stop() == 0


def test_both_agents_run_end_to_end_with_the_embedded_model(
    embedded: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert embedded["codes"] == {"reasoner": 0, "prompter": 0} and embedded["starts"] == 2
    for agent in AGENTS:
        manifest, found = load_run(embedded["root"] / agent)
        assert manifest.state == "finished" and manifest.agent["name"] == agent
        assert manifest.agent["backend"] == "embedded" and manifest.agent["max_model_calls"] == 15
        assert manifest.agent["constrained"] is False  # the paper's free text unless --constrain is given
        assert {r.keys["task_type"] for r in found} == {"pnp", "s_obj", "s_hum"}
        for record in found:
            assert record.status in (Status.OK, Status.PARSE_ERROR), record.error
            queries = record.prediction["model_queries"]
            assert 1 <= len(queries) <= 15 and record.usage["requests"] == record.usage["model_calls"] == len(queries)
            assert record.usage["prompt_tokens"] == sum(q["prompt_tokens"] for q in queries) > 50
            assert record.usage["completion_tokens"] == sum(q["completion_tokens"] for q in queries)
            assert all(q["finish_reason"] in ("stop", "length") and not q["cache_hit"] for q in queries)
            assert record.timing["wall_s"] > 0 and record.prediction["ended_by"]
            if record.status is Status.PARSE_ERROR:  # the reason names the question and what was wrong
                assert record.error and record.error.split(" answer: ")[0] in ("action", "evidence", "plan", "search")
        capsys.readouterr()
        assert main(["report", str(embedded["root"] / agent), "--resamples", "20"]) == 0
        assert "usage: requests" in capsys.readouterr().out


def test_constrained_mode_makes_the_embedded_model_answer_in_the_format(
    household_tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    second_questions = 0
    for agent in AGENTS:
        short = ["--agent-arg", "max_model_calls=2", "--agent-arg", "reasoning_chars=60", *MODEL_THREADS]
        out = tmp_path / agent
        args = run_args(agent, household_tiny, out, "--constrain", "--cache", str(tmp_path / "cache.sqlite"), *short)
        args += ["--limit", "1"]  # 1 episode, not 3: the constrained format is the point here, not the score
        assert main([*args, "--max-tokens", "64"]) == 0  # the last --max-tokens wins: room for the JSON
        manifest, found = load_run(out)
        assert manifest.agent["constrained"] is True and manifest.agent["reasoning_chars"] == 60
        queries = [q for record in found for q in record.prediction["model_queries"]]
        assert all(record.status in (Status.OK, Status.PARSE_ERROR) for record in found)
        assert all(q["as_text"] is not None or q["error"] for q in queries)  # JSON read, or the reason it was not
        read = [q for q in queries if q["read"] is not None]
        assert read, [q["error"] for q in queries]  # the model's answers parse (no success is asserted)
        second_questions += sum(len(record.prediction["model_queries"]) > 1 for record in found)
        capsys.readouterr()
        assert main(["report", str(out), "--resamples", "20"]) == 0
        assert "output constrained (json_schema)" in capsys.readouterr().out
    assert second_questions > 0  # an answer that parsed took an episode on to its next question


def test_a_rerun_from_the_cache_makes_no_model_call(
    embedded: dict[str, Any], household_tiny: Path, tmp_path: Path
) -> None:
    starts = EmbeddedServer.starts
    for agent in AGENTS:
        args = run_args(agent, household_tiny, tmp_path / agent, "--cache", str(embedded["cache"]))
        assert main([*args, *MODEL_THREADS]) == 0
        again = records(tmp_path / agent)
        assert all(r.usage["model_calls"] == 0 and r.usage["cache_hits"] == r.usage["requests"] for r in again)
        first = records(embedded["root"] / agent)
        assert [(r.raw_output, r.prediction["actions"], r.status) for r in again] == [
            (r.raw_output, r.prediction["actions"], r.status) for r in first
        ]
    assert EmbeddedServer.starts == starts  # no model call at all: the server never started


def test_an_external_server_gives_the_same_records_and_a_rerun_makes_no_call(
    embedded: dict[str, Any], served: ServeProcess, household_tiny: Path, tmp_path: Path
) -> None:
    proxy = CountingProxy(served.host_port)
    try:
        external = ["--base-url", proxy.url, "--model", served.model, "--cache", str(tmp_path / "cache.sqlite")]
        sent = 0
        for agent in AGENTS[:1]:  # the transport is the agents' shared session: one agent, one episode shows it
            out = tmp_path / agent
            assert main([*run_args(agent, household_tiny, out, *external, "--concurrency", "2"), "--limit", "1"]) == 0
            sent += sum(r.usage["model_calls"] for r in records(out))
            first = {r["episode_id"]: r for r in deterministic(embedded["root"] / agent)}
            assert [first[r["episode_id"]] for r in deterministic(out)] == deterministic(
                out
            )  # a smaller limit: a subset
        assert proxy.chat_requests() == sent > 0
        tokens = served.metric("llamacpp:prompt_tokens_total")
        for agent in AGENTS[:1]:
            assert main([*run_args(agent, household_tiny, tmp_path / f"{agent}-again", *external), "--limit", "1"]) == 0
            assert all(r.usage["model_calls"] == 0 for r in records(tmp_path / f"{agent}-again"))
        assert proxy.chat_requests() == sent  # counted by the forwarder in front of the server ...
        assert served.metric("llamacpp:prompt_tokens_total") == tokens  # ... and by the server itself
    finally:
        proxy.close()
