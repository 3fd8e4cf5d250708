"""The real thing: SmolLM2-135M-Instruct in a real llama.cpp server (embedded and as its own process).

Kept short on purpose (a few episodes, short answers): SmolLM2 answers in about 1.5 s here.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from llm_doubles import SRC, CountingProxy, ServeProcess, free_port, wait_until

from heedful.agents.llm import LLMDecisionAgent
from heedful.cli import main
from heedful.llm.server import EmbeddedServer
from heedful.outcome import EXIT_NOT_SCORED
from heedful.records import Status
from heedful.runner import load_run
from heedful.suites.base import RolloutContext
from heedful.suites.decisions.suite import SUITE

pytestmark = pytest.mark.llm

THREADS = "1"  # one llama.cpp thread: two test workers each running a model on 2 cores stay at 2 threads
EPISODES = 3
LIMIT = str(EPISODES)
COMMON = ["--limit", LIMIT, "--max-tokens", "32", "--no-progress"]


def run_args(dataset: Path, out: Path, *extra: str) -> list[str]:
    return ["run", "decisions", "--agent", "llm", "--dataset", str(dataset), "--out", str(out), *COMMON, *extra]


def deterministic(run_dir: Path) -> list[dict[str, Any]]:
    """The records but their timing and the server that answered (which differs between the embedded model, one
    external server and a pool's servers by design: each record names its server)."""
    found = []
    for record in load_run(run_dir)[1]:
        data = record.deterministic_dict()
        info = data.get("agent_info")
        if isinstance(info, dict):
            info.pop("server", None)
        found.append(data)
    return found


def stored_count(run_dir: Path) -> int:
    try:
        with sqlite3.connect(f"file:{run_dir / 'records.sqlite'}?mode=ro", uri=True) as conn:  # never create it
            return int(conn.execute("SELECT COUNT(*) FROM records").fetchone()[0])
    except sqlite3.Error:
        return 0


def subprocess_env(**extra: str) -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(SRC), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path, **extra}


@pytest.fixture(scope="module")
def embedded_run(small_dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """`heedful run decisions --agent llm` with the embedded SmolLM2 (3 episodes), once for the module."""
    root = tmp_path_factory.mktemp("embedded")
    starts = EmbeddedServer.starts
    cache = root / "cache.sqlite"
    code = main(run_args(small_dataset, root / "run", "--cache", str(cache), "--agent-arg", f"threads={THREADS}"))
    return {"code": code, "run": root / "run", "cache": cache, "starts": EmbeddedServer.starts - starts}


@pytest.fixture(scope="module")
def served(smollm2: Path) -> Iterator[ServeProcess]:
    """SmolLM2 behind `python -m heedful.llm.serve`, a separate process on loopback."""
    server = ServeProcess("--gguf", str(smollm2), "--threads", THREADS, "--metrics")
    yield server
    assert server.stop() == 0


def usage(run_dir: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["report", str(run_dir), "--format", "json", "--resamples", "50"]) == 0
    return {row["metric"]: row["value"] for row in json.loads(capsys.readouterr().out) if row["group"] == "usage"}


def test_the_embedded_model_runs_end_to_end_and_gets_a_report(
    embedded_run: dict[str, Any], capsys: pytest.CaptureFixture[str]
) -> None:
    assert embedded_run["code"] == 0 and embedded_run["starts"] == 1
    manifest, records = load_run(embedded_run["run"])
    assert manifest.state == "finished" and len(records) == int(LIMIT)
    assert manifest.agent["backend"] == "embedded" and manifest.agent["model"] == "SmolLM2-135M-Instruct.Q4_1"
    assert len(manifest.agent["gguf_sha256"]) == 64
    assert all(r.status in (Status.OK, Status.PARSE_ERROR) and r.raw_output for r in records)
    assert all(r.agent_info["finish_reason"] in ("stop", "length") for r in records)
    assert all(r.usage["model_calls"] == 1 and r.usage["prompt_tokens"] > 100 for r in records)
    totals = usage(embedded_run["run"], capsys)
    assert totals["requests"] == EPISODES and totals["model_calls"] == EPISODES and totals["cache_hits"] == 0
    assert totals["completion_tokens"] == sum(r.usage["completion_tokens"] for r in records)


def test_a_fresh_run_from_the_cache_starts_no_server(
    embedded_run: dict[str, Any], small_dataset: Path, tmp_path: Path
) -> None:
    starts = EmbeddedServer.starts
    args = run_args(small_dataset, tmp_path / "again", "--cache", str(embedded_run["cache"]))
    assert main([*args, "--agent-arg", f"threads={THREADS}"]) == 0
    assert EmbeddedServer.starts == starts  # not a single model call: the server never started
    records = load_run(tmp_path / "again")[1]
    assert all(r.usage["cache_hits"] == 1 and r.usage["model_calls"] == 0 for r in records)
    first = load_run(embedded_run["run"])[1]
    assert [(r.raw_output, r.prediction) for r in records] == [(r.raw_output, r.prediction) for r in first]


def test_an_external_server_gives_the_embedded_records_and_a_rerun_makes_no_call(
    embedded_run: dict[str, Any], served: ServeProcess, small_dataset: Path, tmp_path: Path
) -> None:
    proxy = CountingProxy(served.host_port)
    try:
        cache = str(tmp_path / "cache.sqlite")
        external = ["--base-url", proxy.url, "--model", served.model, "--cache", cache, "--concurrency", "2"]
        assert main(run_args(small_dataset, tmp_path / "external", *external)) == 0
        assert proxy.chat_requests() == EPISODES
        assert deterministic(tmp_path / "external") == deterministic(embedded_run["run"])
        assert {r.agent_info.get("server") for r in load_run(tmp_path / "external")[1]} == {proxy.url}  # who answered

        tokens = served.metric("llamacpp:prompt_tokens_total")
        assert main(run_args(small_dataset, tmp_path / "rerun", *external)) == 0
        assert proxy.chat_requests() == EPISODES  # counted by the forwarder in front of the server
        assert served.metric("llamacpp:prompt_tokens_total") == tokens  # and by the server itself
        assert [r.usage["cache_hits"] for r in load_run(tmp_path / "rerun")[1]] == [1] * EPISODES
    finally:
        proxy.close()


def test_a_pool_of_servers_spreads_requests_skips_a_dead_one_and_gives_the_same_records(
    embedded_run: dict[str, Any], served: ServeProcess, small_dataset: Path, tmp_path: Path
) -> None:
    """Two forwarders to the real server stand for two servers of one model; a third URL has nothing behind it."""
    first, second = CountingProxy(served.host_port), CountingProxy(served.host_port)
    dead = f"http://127.0.0.1:{free_port()}/v1"
    try:
        pool = ["--base-url", first.url, "--base-url", dead, "--base-url", second.url]
        flags = [*pool, "--model", served.model, "--no-cache", "--concurrency", "2", "--retries", "0"]
        assert main(run_args(small_dataset, tmp_path / "pool", *flags)) == 0
        assert first.chat_requests() + second.chat_requests() == EPISODES  # the dead server cost no episode
        assert first.chat_requests() >= 1 and second.chat_requests() >= 1
        assert deterministic(tmp_path / "pool") == deterministic(embedded_run["run"])
        manifest, _ = load_run(tmp_path / "pool")
        assert manifest.agent["base_url"] == [first.url, dead, second.url]
    finally:
        first.close()
        second.close()


def test_an_answer_cut_by_max_tokens_is_a_parse_error_with_finish_reason_length(
    served: ServeProcess, small_dataset: Path
) -> None:
    suite = SUITE
    episode = suite.load_dataset(small_dataset)[0]
    agent = LLMDecisionAgent(base_url=served.url, model=served.model, max_tokens=3, use_cache=False)
    try:
        record = suite.rollout_episode(episode, agent, RolloutContext(seed=1, index=0))
    finally:
        agent.close()
    assert record.status is Status.PARSE_ERROR and "not valid JSON" in (record.error or "")
    assert record.agent_info["finish_reason"] == "length" and record.usage["completion_tokens"] == 3
    assert record.correct is False


def test_a_killed_server_gives_interface_errors_and_the_run_resumes_when_it_returns(
    embedded_run: dict[str, Any], smollm2: Path, small_dataset: Path, tmp_path: Path
) -> None:
    server = ServeProcess("--gguf", str(smollm2), "--threads", THREADS)
    out = tmp_path / "run"
    args = run_args(small_dataset, out, "--base-url", server.url, "--model", server.model, "--no-cache")
    args += ["--retries", "2", "--timeout", "60"]
    command = [sys.executable, "-m", "heedful", *args]
    process = subprocess.Popen(command, env=subprocess_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: stored_count(out) >= 1, "a first record", process)
        server.kill()
        _, err = process.communicate(timeout=300)  # the retries' backoff, then the last records
    finally:
        process.kill()
        server.stop()  # on a failure too: never a server left running after the test
    assert process.returncode == EXIT_NOT_SCORED, err  # episodes not scored: the run says so in its exit code
    records = load_run(out)[1]
    failed = [r for r in records if r.status is Status.INTERFACE_ERROR]
    assert len(records) == EPISODES and 1 <= len(failed) <= 2
    assert all("cannot reach" in (r.error or "") and r.usage["model_calls"] == 3 for r in failed)

    restarted = ServeProcess("--gguf", str(smollm2), "--threads", THREADS, port=server.port)
    try:
        # a loaded CI machine can take long over one answer: the resume may raise the per-request timeout
        assert main([*args, "--timeout", "300", "--resume"]) == 0
    finally:
        assert restarted.stop() == 0
    assert deterministic(out) == deterministic(embedded_run["run"])


def test_ctrl_c_stops_a_concurrent_run_and_the_embedded_server_cleanly(small_dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    command = [sys.executable, "-m", "heedful", *run_args(small_dataset, out, "--no-cache", "--concurrency", "3")]
    env = subprocess_env(HEEDFUL_LLAMA_LOG="1")
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        wait_until(lambda: stored_count(out) >= 1, "a first record", process)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=300)  # in-flight requests finish first; slow on a loaded machine
    finally:
        process.kill()
    assert process.returncode == 130, err[-2000:]
    assert "interrupted" in err and "~Server: main loop exited" in err
    manifest, records = load_run(out)
    assert manifest.state == "interrupted" and 1 <= len(records) < EPISODES


def test_every_worker_process_starts_and_stops_its_own_server(small_dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = run_args(small_dataset, out, "--no-cache", "--workers", "2", "--agent-arg", "threads=1")
    args[args.index(LIMIT)] = "2"
    done = subprocess.run(
        [sys.executable, "-m", "heedful", *args],
        env=subprocess_env(HEEDFUL_LLAMA_LOG="1"),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    started = done.stderr.count("srv          init: listening on")
    assert 1 <= started <= 2 and done.stderr.count("~Server: main loop exited") == started
    assert len(load_run(out)[1]) == 2
