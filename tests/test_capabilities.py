"""An agent's declarations are read in one place (`heedful.capabilities`), and nowhere else."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

import heedful
from heedful.capabilities import capabilities
from heedful.errors import ConfigError, UnknownDeclarationError


class _Bare:
    def decide(self, observation: Any) -> str:
        return ""


class _Controller:
    name = "ctl"
    cameras = ()  # reads no image: must stay empty, not fall back to every camera
    concurrency = 3
    session_args = ("max_cost",)

    def predict(self, observation: Any) -> Any:
        return None

    def fit(self, episodes: Any) -> None:
        return None

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "kind": "test double"}


def test_a_bare_agent_declares_nothing() -> None:
    declared = capabilities(_Bare())
    assert declared.kind == "decision" and declared.name == "_Bare" and declared.concurrency == 1
    assert not declared.privileged and not declared.fittable and declared.cameras is None
    assert declared.close is None and declared.description() == {"name": "_Bare"}


def test_declarations_are_read_as_declared() -> None:
    declared = capabilities(_Controller())
    assert declared.kind == "controller" and declared.cameras == () and declared.concurrency == 3
    assert declared.session_args == frozenset({"max_cost"}) and declared.fittable
    assert declared.description() == {"name": "ctl", "kind": "test double"}
    assert capabilities(_Controller).kind == "controller"  # a class reads the same (before it is built)


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2"])
def test_a_bad_concurrency_is_refused_by_name(bad: object) -> None:
    agent = _Bare()
    agent.concurrency = bad  # type: ignore[attr-defined]
    with pytest.raises(ConfigError, match="agent concurrency must be a positive integer"):
        capabilities(agent)


def test_the_generic_layers_and_rollouts_do_not_probe_agents() -> None:
    root = Path(heedful.__file__).parent
    paths = [root / "api.py", *sorted((root / "runner").glob("*.py")), *sorted(root.glob("suites/*/rollout.py"))]
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("getattr", "hasattr"):
                target = node.args[0]
                name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", "")
                assert "agent" not in name and "policy" not in name, f"{path.name}:{node.lineno} probes {name}"


def test_properties_read_as_defaults_on_the_class_and_as_values_on_an_instance() -> None:
    from heedful.agents.llm import LLMDecisionAgent

    on_class = capabilities(LLMDecisionAgent)
    assert on_class.concurrency == 1 and on_class.has_budget is False and on_class.kind == "decision"
    agent = LLMDecisionAgent(base_url="http://127.0.0.1:9/v1", model="m", concurrency=3, max_requests=5)
    assert capabilities(agent).concurrency == 3 and capabilities(agent).has_budget is True


def test_a_misspelled_declaration_is_an_error_with_did_you_mean() -> None:
    class Misspelled:
        concurency = 4  # a near miss of `concurrency`: silently ignored before

        def decide(self, observation: object) -> None: ...

    with pytest.raises(UnknownDeclarationError, match=r"declares 'concurency'.*did you mean 'concurrency'"):
        capabilities(Misspelled())
    with pytest.raises(UnknownDeclarationError, match="did you mean 'privileged'"):
        capabilities(type("Inherited", (type("Base", (), {"priviledged": True}),), {}))


def test_names_far_from_every_declaration_are_the_agents_own() -> None:
    class Own:
        concurrency = 2
        temperature = 0.5  # an agent's own setting, not a declaration
        _concurency = 3  # private names are the agent's business

        def decide(self, observation: object) -> None: ...

    assert capabilities(Own).concurrency == 2
