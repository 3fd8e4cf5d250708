"""`heedful run decisions --agent llm` against a test-double server: flags, usage rows, budgets, secrets."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from llm_doubles import FakeOpenAIServer, Reply, completion

from heedful.cli import main
from heedful.runner import load_run


def first_candidate(body: dict[str, Any]) -> Reply:
    """Answer the first allowed id (or "a1" when the request carries no schema)."""
    decision: Any = "a1"
    if "response_format" in body:
        spec = body["response_format"]["json_schema"]["schema"]["properties"]["decision"]
        decision = spec["enum"][0] if "enum" in spec else spec["items"]["enum"][:1]
    return Reply(body=completion(json.dumps({"decision": decision}), prompt_tokens=100, completion_tokens=10))


@pytest.fixture
def server() -> Any:
    with FakeOpenAIServer(first_candidate) as fake:
        yield fake


Run = Callable[..., int]


def report_json(run: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    capsys.readouterr()
    # the rows are read whatever the run's status mix (its exit code is tested on its own)
    assert main(["report", str(run), "--format", "json", "--resamples", "50", "--max-errors", "100%"]) == 0
    rows: list[dict[str, Any]] = json.loads(capsys.readouterr().out)
    return rows


def usage(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {row["metric"]: row["value"] for row in rows if row["group"] == "usage"}


def test_a_run_records_text_finish_reason_and_tokens_and_reports_usage(
    heedful_run: Run, server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps({"prompt_per_million": 2.0, "completion_per_million": 8.0}))
    out = tmp_path / "run"
    assert (
        heedful_run(server, out, "--limit", "6", "--cache", str(tmp_path / "c.sqlite"), "--price-table", str(prices))
        == 0
    )
    manifest, records = load_run(out)
    assert [r.status.value for r in records] == ["ok"] * 6
    assert all(r.raw_output and r.agent_info["finish_reason"] == "stop" for r in records)
    assert all(r.usage["prompt_tokens"] == 100 and r.usage["completion_tokens"] == 10 for r in records)
    assert manifest.agent["constrained"] is True and manifest.spec.agent_args["price_table"] == str(prices)
    generation = manifest.generation or {}
    assert generation["completion_tokens"] == 60 and generation["wall_s"] > 0
    assert generation["tokens_per_s"] == pytest.approx(60 / generation["wall_s"], rel=0.01)
    totals = usage(report_json(out, capsys))
    assert totals["requests"] == 6 and totals["model_calls"] == 6 and totals["cache_hits"] == 0
    assert totals["prompt_tokens"] == 600 and totals["completion_tokens"] == 60
    assert totals["cost"] == pytest.approx((600 * 2.0 + 60 * 8.0) / 1e6)
    assert totals["wall_time_s"] > 0 and totals["requests_per_s"] == pytest.approx(6 / totals["wall_time_s"])
    capsys.readouterr()
    assert main(["report", str(out), "--resamples", "50"]) == 0
    table = capsys.readouterr().out
    assert "output constrained (json_schema)" in table.splitlines()[0]
    assert "usage: requests 6, cache hits 0, model calls 6 (retries 0)" in table and "cost 0.001680 USD" in table


def test_a_fresh_run_over_the_same_episodes_is_answered_from_the_cache(
    heedful_run: Run, server: FakeOpenAIServer, tmp_path: Path
) -> None:
    cache = str(tmp_path / "c.sqlite")
    assert heedful_run(server, tmp_path / "a", "--limit", "5", "--cache", cache) == 0
    assert len(server.requests) == 5
    assert heedful_run(server, tmp_path / "b", "--limit", "5", "--cache", cache, "--concurrency", "3") == 0
    assert len(server.requests) == 5
    first, second = load_run(tmp_path / "a")[1], load_run(tmp_path / "b")[1]
    assert [r.raw_output for r in first] == [r.raw_output for r in second]
    assert all(r.usage["cache_hits"] == 1 and r.usage["model_calls"] == 0 for r in second)
    assert heedful_run(server, tmp_path / "c", "--limit", "5", "--cache", cache, "--no-cache") == 0
    assert len(server.requests) == 10


def test_unconstrained_runs_send_no_schema_and_say_so(
    heedful_run: Run, server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert heedful_run(server, tmp_path / "run", "--limit", "2", "--no-cache", "--no-constrain") == 0
    assert all("response_format" not in body for body in server.requests)
    capsys.readouterr()
    assert main(["report", str(tmp_path / "run"), "--resamples", "50"]) == 0
    assert "output unconstrained" in capsys.readouterr().out.splitlines()[0]


def test_the_api_key_is_sent_but_never_written(
    heedful_run: Run, server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-heedful-test-9f8e7d6c5b4a"
    monkeypatch.setenv("HEEDFUL_TEST_KEY", secret)
    cache = tmp_path / "cache.sqlite"
    out = tmp_path / "run"
    assert heedful_run(server, out, "--limit", "3", "--api-key-env", "HEEDFUL_TEST_KEY", "--cache", str(cache)) == 0
    assert {h["authorization"] for h in server.headers} == {f"Bearer {secret}"}
    written = [p for p in [*out.iterdir(), *tmp_path.glob("cache.sqlite*")] if p.is_file()]
    assert written and not any(secret.encode() in p.read_bytes() for p in written)
    assert load_run(out)[0].spec.agent_args["api_key_env"] == "HEEDFUL_TEST_KEY"


@pytest.mark.parametrize("concurrency", ["1", "3"])
def test_a_request_budget_stops_the_run_and_a_larger_one_resumes_it(
    heedful_run: Run, server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], concurrency: str
) -> None:
    out = tmp_path / "run"
    common = ["--limit", "8", "--no-cache", "--concurrency", concurrency]
    assert heedful_run(server, out, *common, "--max-requests", "3") == 3
    err = capsys.readouterr().err
    assert "stopped" in err and "--max-requests 3" in err and "--resume" in err
    manifest, records = load_run(out)
    assert len(records) == 3 and manifest.state == "stopped" and "--max-requests 3" in (manifest.stop_reason or "")
    assert heedful_run(server, out, *common, "--max-requests", "3", "--resume") == 3  # the run already spent 3
    assert len(load_run(out)[1]) == 3 and len(server.requests) == 3
    assert heedful_run(server, out, *common, "--max-requests", "8", "--resume") == 0
    manifest, records = load_run(out)
    assert len(records) == 8 and manifest.state == "finished" and len(server.requests) == 8


def test_language_model_flags_are_refused_for_other_agents(
    small_dataset: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", "decisions", "--agent", "oracle", "--model", "gpt", "--dataset", str(small_dataset)]) == 2
    assert "--model is an option of language-model agents (--agent llm); agent 'oracle'" in capsys.readouterr().err
    args = [
        "run",
        "decisions",
        "--agent",
        "llm",
        "--model",
        "m",
        "--agent-arg",
        "model=n",
        "--dataset",
        str(small_dataset),
    ]
    assert main(args) == 2
    assert "give it once" in capsys.readouterr().err


def test_a_cost_budget_without_prices_is_refused(
    small_dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "run"
    code = main(
        [
            "run",
            "decisions",
            "--agent",
            "llm",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--model",
            "m",
            "--max-cost",
            "1",
            "--out",
            str(out),
            "--limit",
            "1",
            "--no-progress",
            "--dataset",
            str(small_dataset),
        ]
    )
    assert code == 2 and "--max-cost needs a price table" in capsys.readouterr().err
    assert not out.exists()


def test_transport_failures_are_recorded_with_their_own_status(heedful_run: Run, tmp_path: Path) -> None:
    with FakeOpenAIServer(lambda _: Reply(status=503, body="overloaded")) as down:
        assert heedful_run(down, tmp_path / "run", "--limit", "2", "--no-cache", "--retries", "1") == 4  # not scored
    records = load_run(tmp_path / "run")[1]
    assert [r.status.value for r in records] == ["interface_error"] * 2
    assert all("HTTP 503" in (r.error or "") and r.usage["model_calls"] == 2 for r in records)
    assert all(r.correct is None for r in records)


def test_records_keep_the_instruction_and_reference_the_exact_prompt_stored_once(
    heedful_run: Run, server: FakeOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from heedful.runner.store import RunStore

    out = tmp_path / "run"
    assert heedful_run(server, out, "--limit", "4", "--order", "file") == 0
    _, records = load_run(out)
    sent = {"\n\n".join(f"[{m['role']}]\n{m['content']}" for m in body["messages"]): body for body in server.requests}
    with RunStore(out) as store:
        texts = store.prompt_texts()
    assert len(texts) == len(records) == 4  # four distinct prompts, each stored once; records hold only the hash
    for record in records:
        reference = record.inputs["prompt"]
        assert set(reference) == {"sha256"} and texts[reference["sha256"]] in sent
        assert record.inputs["instruction"] in texts[reference["sha256"]]
        assert record.inputs["candidates"] and "prompt" not in record.agent_info
    capsys.readouterr()
    assert main(["show", str(out), records[0].episode_id, "--full"]) == 0
    shown = capsys.readouterr().out
    prompt_lines = texts[records[0].inputs["prompt"]["sha256"]].splitlines()
    assert all(line.strip() in shown for line in prompt_lines) and records[0].inputs["instruction"] in shown
    assert main(["export", str(out), "--format", "jsonl", "--out", str(tmp_path / "x.jsonl")]) == 0
    rows = [json.loads(line) for line in (tmp_path / "x.jsonl").read_text().splitlines()]
    assert [r["prompt"] for r in rows] == [texts[r.inputs["prompt"]["sha256"]] for r in records]
