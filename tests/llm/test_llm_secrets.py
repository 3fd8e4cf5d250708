"""A key a server echoes (a 401 naming the Authorization header it got) reaches no record, manifest, site or error
line: heedful knows the key it sent and removes it, with any credential header's value (heedful.redact)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from llm_doubles import FakeOpenAIServer, Reply

from heedful.cli import main
from heedful.redact import REDACTED, redact
from heedful.runner import load_run

KEY = "sk-test-" + "S3cr3tK3y" * 3


def test_a_key_the_server_echoes_is_redacted_everywhere(
    heedful_run: Callable[..., int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HEEDFUL_TEST_KEY", KEY)
    server = FakeOpenAIServer()
    server.script = lambda _: Reply(
        status=401,
        body={"error": {"message": f"bad key {KEY}; you sent Authorization: {server.headers[-1]['authorization']}"}},
    )
    out = tmp_path / "run"
    with server:
        heedful_run(server, out, "--limit", "3", "--api-key-env", "HEEDFUL_TEST_KEY")
    assert server.headers and server.headers[-1]["authorization"] == f"Bearer {KEY}"  # it was sent, and echoed
    _, records = load_run(out)
    assert [r.status.value for r in records] == ["interface_error"] * 3
    assert all(f"bad key {REDACTED}" in str(r.error) and KEY not in str(r.error) for r in records)
    assert main(["view", str(out), "--out", str(tmp_path / "site"), "--no-progress"]) == 0
    stored = [f for f in tmp_path.rglob("*") if f.is_file()]
    assert stored and not [f for f in stored if KEY.encode() in f.read_bytes()]
    captured = capsys.readouterr()
    assert KEY not in captured.out + captured.err


def test_a_credential_header_value_is_redacted_even_when_the_key_is_not_known() -> None:
    assert (
        redact("upstream said Authorization: Bearer abc.def-123456")
        == f"upstream said Authorization: Bearer {REDACTED}"
    )
    assert redact('{"api-key": "0123456789"}') == f'{{"api-key": "{REDACTED}"}}'
    assert redact("no secret in 1 key: x") == "no secret in 1 key: x"
