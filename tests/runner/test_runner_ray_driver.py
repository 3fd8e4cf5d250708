"""The Ray driver's bookkeeping against a scripted stand-in for Ray (a test double: no cluster, no processes).

A real cluster cannot be made to hit this window on demand: an actor dies and Ray restarts it while the driver,
not yet told, sends it the next chunk; the fresh process has not been set up. The kill tests in
test_runner_ray.py meet it by chance under load (it failed a run with "the worker was not set up")."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from heedful.runner.ray_backend import RESTARTED, RayWorker, _Chunk, _Driver


class ScriptedRef:
    """An object ref whose value is already known."""

    def __init__(self, value: dict[str, Any] | Exception) -> None:
        self.value = value


class ActorError(Exception):
    pass


class ScriptedRay:
    """`ray.wait` answers the oldest ref first; `ray.get` returns its value."""

    exceptions = SimpleNamespace(RayActorError=ActorError, RayError=Exception)

    def wait(self, refs: list[ScriptedRef], num_returns: int, timeout: float) -> tuple[list[ScriptedRef], list]:
        return refs[:num_returns], refs[num_returns:]

    def get(self, ref: ScriptedRef) -> dict[str, Any]:
        if isinstance(ref.value, Exception):
            raise ref.value
        return ref.value


@dataclass
class ScriptedActor:
    """Answers chunks from a script of results; counts its set-ups."""

    answers: list[dict[str, Any] | Exception]
    starts: int = 0
    sent: list[list[tuple[int, str]]] = field(default_factory=list)

    def handle(self) -> SimpleNamespace:
        def start(setup: list[Any], index: int) -> ScriptedRef:
            self.starts += 1
            return ScriptedRef({"pid": 1, "node_id": "n"})

        def run_chunk(items: list[tuple[int, str]]) -> ScriptedRef:
            self.sent.append(items)
            return ScriptedRef(self.answers.pop(0))

        return SimpleNamespace(start=SimpleNamespace(remote=start), run_chunk=SimpleNamespace(remote=run_chunk))


def test_a_chunk_sent_to_a_restarted_actor_before_its_set_up_is_sent_again_after_it() -> None:
    actor = ScriptedActor(answers=[{RESTARTED: True}, {"records": []}])
    work = SimpleNamespace(todo=[(0, "{}")], renderers={})
    driver = _Driver(ScriptedRay(), work, [actor.handle()], setup_ref=object())  # type: ignore[arg-type]
    assert list(driver.run([_Chunk([(0, "{}")])])) == []  # no RunError: the chunk ran once the actor was set up
    assert actor.starts == 2 and actor.sent == [[(0, "{}")], [(0, "{}")]]


def test_a_fresh_worker_process_says_it_was_restarted_rather_than_failing_the_chunk() -> None:
    assert RayWorker().run_chunk([(0, "{}")]) == {RESTARTED: True}


def test_chunks_lost_together_in_one_death_are_charged_nothing_and_sent_again_one_at_a_time() -> None:
    died = ActorError("the actor died")
    actor = ScriptedActor(answers=[died, died, {"records": []}, {"records": []}])
    a, b = [(0, "a")], [(1, "b")]
    driver = _Driver(ScriptedRay(), SimpleNamespace(todo=[*a, *b], renderers={}), [actor.handle()], setup_ref=object())  # type: ignore[arg-type]
    assert list(driver.run([_Chunk(a), _Chunk(b)])) == []  # nothing recorded as crashed: who died is not known
    assert actor.sent[:2] == [a, b] and sorted(actor.sent[2:]) == [a, b] and actor.starts == 2


def test_a_chunk_that_dies_alone_is_split_into_single_episodes_each_sent_alone() -> None:
    died = ActorError("the actor died")
    actor = ScriptedActor(answers=[died, {"records": []}, {"records": []}])
    chunk = [(0, "a"), (1, "b")]
    driver = _Driver(ScriptedRay(), SimpleNamespace(todo=chunk, renderers={}), [actor.handle()], setup_ref=object())  # type: ignore[arg-type]
    assert list(driver.run([_Chunk(chunk)])) == []
    assert actor.sent == [chunk, [(0, "a")], [(1, "b")]]
