"""Hostile or broken model servers through a real `heedful run decisions --agent llm`: a 20 MB reply is judged in
full but stored bounded; a non-JSON HTTP 200, a content that is not text and malformed token counts are interface
errors (never the model's answer, never summed into the usage)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from llm_doubles import FakeOpenAIServer, Reply, completion
from test_llm_runs import Run, report_json, usage

from heedful.records import TEXT_LIMIT
from heedful.runner import load_run


def test_a_huge_reply_is_judged_in_full_but_stored_bounded(
    heedful_run: Run, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    huge = '{"decision": "a1"}' + " " * 20_000_000
    with FakeOpenAIServer(lambda _: Reply(body=completion(huge))) as server:
        assert heedful_run(server, tmp_path / "run", "--limit", "2", "--retries", "0") == 0
    _, records = load_run(tmp_path / "run")
    assert [r.status.value for r in records] == ["parse_error"] * 2
    assert all("answer too long (20000018 characters" in str(r.error) for r in records)
    assert all(len(r.raw_output or "") == TEXT_LIMIT for r in records)
    assert all(r.truncated and r.truncated["raw_output"]["chars"] == len(huge) for r in records)
    assert (tmp_path / "run" / "records.sqlite").stat().st_size < 2_000_000
    capsys.readouterr()
    assert "parse_error" in json.dumps(report_json(tmp_path / "run", capsys))


BROKEN: dict[str, Reply] = {
    "html page": Reply(body="<html>502 from a proxy</html>", content_type="text/html"),
    "cut JSON": Reply(body='{"id": "chatcmpl-x", "choices": [{"mess'),
    "content not text": Reply(
        body={
            **completion("x"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": {"a": 1}}, "finish_reason": "stop"}],
        }
    ),
    "negative tokens": Reply(body=completion('{"decision": "a1"}', prompt_tokens=-20)),
    "tokens as text": Reply(body={**completion('{"decision": "a1"}'), "usage": {"prompt_tokens": "many"}}),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_broken_answer_is_an_interface_error_and_its_usage_is_not_summed(
    case: str, heedful_run: Run, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reply = BROKEN[case]
    with FakeOpenAIServer(lambda _: reply) as server:  # every episode an interface error: exit 4, not success
        assert heedful_run(server, tmp_path / "run", "--limit", "2", "--retries", "0") == 4
    _, records = load_run(tmp_path / "run")
    assert [r.status.value for r in records] == ["interface_error"] * 2, [r.error for r in records]
    assert all(r.prediction is None and r.correct is None for r in records)
    totals: dict[str, Any] = usage(report_json(tmp_path / "run", capsys))
    assert all(value is None or value >= 0 for value in totals.values())
    assert totals.get("prompt_tokens", 0) == 0
