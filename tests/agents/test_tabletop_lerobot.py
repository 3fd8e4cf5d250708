"""`--agent lerobot`: a LeRobot checkpoint run in-process on the tabletop suite.

The first tests check the typed errors and the feature mapping without lerobot; the next build an untrained
ACT checkpoint with lerobot's own `save_pretrained` (a second or two) and step it. The slow round trip is the
whole path a user takes: `heedful demos tabletop --format lerobot`, lerobot's own training script
(`python -m lerobot.scripts.lerobot_train`: CPU, no pretrained backbone weights, nothing downloaded), then
`heedful run tabletop --agent lerobot`. The tests that need lerobot are skipped only where it is not installed;
the README's test command installs it.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from importlib.util import find_spec
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from heedful.agents.registry import agent_class
from heedful.agents.tabletop_lerobot import LeRobotAgent, _image_features, _resize
from heedful.capabilities import capabilities
from heedful.cli.main import main
from heedful.conformance import check_agent
from heedful.errors import AgentInterfaceError, ConfigError, MissingDependencyError
from heedful.runner import load_run

needs_lerobot = pytest.mark.skipif(
    find_spec("lerobot") is None, reason="lerobot is not installed (see the README's test command)"
)
LABELS = ["s1_t00_pickup", "s2_t04_stack"]
SIZE = 32  # the exported and trained image size; the suite renders at it for this policy (its image_size)
STEPS = 150
CHUNK = 45  # the untrained ACT's chunk: a trial of 180 steps makes 4 policy calls (each 20-100 ms here)
# A tiny ACT: one encoder and one decoder layer of width 64 on a ResNet-18 without pretrained weights, which
# dominates the cost (0.2 s a step on one busy core at 32 px; 0.37 s at 64 px).
TRAIN_FLAGS = [
    "--policy.type=act",
    "--policy.device=cpu",
    "--policy.push_to_hub=false",
    "--policy.pretrained_backbone_weights=null",
    "--policy.dim_model=64",
    "--policy.n_heads=2",
    "--policy.dim_feedforward=128",
    "--policy.n_encoder_layers=1",
    "--policy.n_decoder_layers=1",
    "--policy.n_vae_encoder_layers=1",
    "--policy.latent_dim=8",
    "--policy.chunk_size=10",
    "--policy.n_action_steps=10",
    "--policy.optimizer_lr=1e-4",
    "--policy.optimizer_lr_backbone=1e-4",
    "--batch_size=8",
    f"--steps={STEPS}",
    "--log_freq=50",
    f"--save_freq={STEPS}",
    "--num_workers=0",
    "--seed=0",
    "--wandb.enable=false",
]


def _feature(*shape: int) -> Any:
    return SimpleNamespace(shape=shape)


def _checkpoint_files(root: Path, *names: str) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name in names:
        (root / name).write_text("{}")
    return root


def test_the_agent_is_registered_as_a_controller() -> None:
    assert agent_class("lerobot", "tabletop") is LeRobotAgent
    declared = capabilities(LeRobotAgent)
    assert declared.kind == "controller" and declared.cameras == () and not declared.object_state


def test_a_missing_path_or_a_directory_that_is_no_checkpoint_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="needs a checkpoint: --agent-arg path=DIR"):
        LeRobotAgent()
    with pytest.raises(ConfigError, match="no such directory"):
        LeRobotAgent(path=str(tmp_path / "nowhere"))
    with pytest.raises(ConfigError, match=r"not a LeRobot pretrained_model directory \(no config.json or model"):
        LeRobotAgent(path=str(_checkpoint_files(tmp_path / "empty")))
    with pytest.raises(ConfigError, match=r"no model\.safetensors"):
        LeRobotAgent(path=str(_checkpoint_files(tmp_path / "config-only", "config.json")))
    old = _checkpoint_files(tmp_path / "old" / "pretrained_model", "config.json", "model.safetensors")
    with pytest.raises(ConfigError, match=r"no policy_preprocessor.json or .*migrate_policy_normalization"):
        LeRobotAgent(path=str(old.parent))  # a checkpoint directory: the pretrained_model inside it is read


def test_without_lerobot_the_agent_says_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    files = ("config.json", "model.safetensors", "policy_preprocessor.json", "policy_postprocessor.json")
    model = _checkpoint_files(tmp_path / "model", *files)
    for module in ("torch", "lerobot.configs.policies"):
        monkeypatch.setitem(sys.modules, module, None)  # `import` raises ImportError, as when not installed
    with pytest.raises(MissingDependencyError, match=r"pip install --no-deps lerobot==0.4.4"):
        LeRobotAgent(path=str(model))


def test_features_heedful_cannot_provide_are_named(tmp_path: Path) -> None:
    aloha = SimpleNamespace(
        input_features={"observation.images.top": _feature(3, 480, 640), "observation.state": _feature(14)},
        output_features={"action": _feature(14)},
    )
    with pytest.raises(
        ConfigError,
        match=r"observation.images.top \[3, 480, 640\], observation.state \[14\], output action \[14\]; "
        r"heedful offers observation.images.image \[3, H, W\], observation.images.wrist_image",
    ):
        _image_features(tmp_path, aloha)
    wrist = SimpleNamespace(
        input_features={"observation.images.wrist_image": _feature(3, 64, 64), "observation.state": _feature(8)},
        output_features={"action": _feature(7)},
    )
    assert _image_features(tmp_path, wrist) == {"observation.images.wrist_image": "wrist"}


def test_images_are_resampled_at_pixel_centres() -> None:
    pytest.importorskip("torch")
    rows, cols = np.meshgrid(np.arange(224), np.arange(224), indexing="ij")
    image = np.stack([rows, cols, rows ^ cols], axis=-1).astype(np.uint8)
    assert _resize(image, (224, 224)) is image
    small = _resize(image, (64, 56))

    def centres(n: int) -> np.ndarray:  # the source pixel under each target pixel's centre
        return ((np.arange(n) + 0.5) * 224 / n).astype(int)

    assert small.shape == (64, 56, 3) and small.dtype == np.uint8
    assert np.array_equal(small, image[centres(64)][:, centres(56)])


def _untrained_act(root: Path, images: dict[str, int], **overrides: Any) -> Path:
    """An untrained ACT checkpoint saved by lerobot (weights, config, processors without statistics)."""
    import torch
    from lerobot.configs.types import FeatureType, PolicyFeature
    from lerobot.policies.act.configuration_act import ACTConfig
    from lerobot.policies.act.modeling_act import ACTPolicy
    from lerobot.policies.factory import make_pre_post_processors

    inputs = {"observation.state": PolicyFeature(FeatureType.STATE, (8,))}
    inputs.update({key: PolicyFeature(FeatureType.VISUAL, (3, size, size)) for key, size in images.items()})
    settings: dict[str, Any] = {
        "device": "cpu",
        "pretrained_backbone_weights": None,
        "dim_model": 16,
        "n_heads": 1,
        "dim_feedforward": 16,
        "n_encoder_layers": 1,
        "n_vae_encoder_layers": 1,
        "latent_dim": 4,
        "chunk_size": CHUNK,
        "n_action_steps": CHUNK,
        **overrides,
    }
    config = ACTConfig(
        input_features=inputs, output_features={"action": PolicyFeature(FeatureType.ACTION, (7,))}, **settings
    )
    torch.manual_seed(0)
    ACTPolicy(config).save_pretrained(root)
    for pipeline in make_pre_post_processors(config, dataset_stats=None):
        pipeline.save_pretrained(root)
    return root


@pytest.fixture(scope="module")
def wrist_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _untrained_act(tmp_path_factory.mktemp("lerobot") / "wrist", {"observation.images.wrist_image": 16})


def _observation(size: int = 224) -> dict[str, Any]:
    rng = np.random.default_rng(0)
    image = rng.integers(0, 256, (size, size, 3), dtype=np.uint8)
    return {"image": image, "wrist_image": image[::-1], "state": np.zeros(8), "prompt": "Pick it up.", "step": 0}


@needs_lerobot
def test_an_untrained_checkpoint_acts_and_bad_actions_are_interface_errors(
    wrist_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import torch

    model = wrist_model
    agent = LeRobotAgent(path=str(model))
    declared = capabilities(agent)
    assert declared.cameras == ("wrist",) and agent.image_size == 16  # only the camera it reads, at its size
    assert declared.predict_batch is not None and declared.begin_trial is None  # ACT: whole chunks, no seed
    described = agent.describe()
    assert described["policy"] == "act" and described["path"] == str(model) and described["cameras"] == ["wrist"]
    assert described["actions_per_call"] == CHUNK
    assert described["weights_sha256"] == hashlib.sha256((model / "model.safetensors").read_bytes()).hexdigest()
    assert described["input_features"]["observation.images.wrist_image"] == {"type": "VISUAL", "shape": [3, 16, 16]}

    def actions() -> np.ndarray:
        agent.reset()
        agent.set_instruction("Pick it up.")
        return np.concatenate([agent.predict(_observation()) for _ in range(3)])  # 224 px, resampled to 16

    first = actions()
    assert first.shape == (3 * CHUNK, 7) and np.isfinite(first).all()  # n_action_steps actions a call
    assert np.array_equal(actions(), first) and agent.trial_report()[0] == {"predictions": 3}

    # what select_action hands out over the next steps, one at a time (its queue of the chunk)
    agent.policy.reset()
    queued = []
    for _ in range(CHUNK):
        batch = agent._prepare(agent._frame(_observation()), agent.device, "Pick it up.", "heedful")
        with torch.inference_mode():
            queued.append(agent.postprocessor(agent.policy.select_action(agent.preprocessor(batch))).numpy())
    assert np.array_equal(np.concatenate(queued), first[:CHUNK])

    monkeypatch.setattr(agent.policy, "predict_action_chunk", lambda batch: torch.full((1, CHUNK, 7), float("nan")))
    with pytest.raises(AgentInterfaceError, match="non-finite action"):
        agent.predict(_observation())
    monkeypatch.setattr(agent.policy, "predict_action_chunk", lambda batch: torch.zeros((1, CHUNK, 14)))
    with pytest.raises(AgentInterfaceError, match=rf"shape \(1, {CHUNK}, 14\), not \(1, {CHUNK}, 7\)"):
        agent.predict(_observation())


@needs_lerobot
def test_a_policy_with_temporal_ensembling_steps_select_action_with_its_seed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import torch

    model = _untrained_act(
        tmp_path / "ensembled", {"observation.images.wrist_image": 16}, n_action_steps=1, temporal_ensemble_coeff=0.01
    )
    agent = LeRobotAgent(path=str(model))
    declared = capabilities(agent)
    assert declared.predict_batch is None and declared.begin_trial is not None  # per-trial state: not batched
    assert agent.describe()["actions_per_call"] == 1

    def actions(seed: int) -> np.ndarray:
        agent.begin_trial(None, seed)  # type: ignore[misc]
        agent.reset()
        agent.set_instruction("Pick it up.")
        return np.concatenate([agent.predict(_observation()) for _ in range(3)])

    first = actions(3)
    assert first.shape == (3, 7) and np.array_equal(actions(3), first)  # one action a step; reset clears the ensemble
    monkeypatch.setattr(agent.policy, "select_action", lambda batch: torch.full((1, 7), float("nan")))
    with pytest.raises(AgentInterfaceError, match="non-finite action"):
        agent.predict(_observation())


@needs_lerobot
@pytest.mark.render
def test_batched_lerobot_answers_and_records_are_the_unbatched_ones(wrist_model: Path, tmp_path: Path) -> None:
    """Each row of a batch is what the policy answers alone, up to the last bits (torch's CPU kernels are not
    batch-invariant, as for bc); a lockstep run's statuses, predictions and steps are the unbatched run's."""
    from heedful.api import evaluate

    agent = LeRobotAgent(path=str(wrist_model))
    rng = np.random.default_rng(1)
    observations = [
        {**_observation(16), "wrist_image": rng.integers(0, 256, (16, 16, 3), dtype=np.uint8), "prompt": f"p{i}"}
        for i in range(5)
    ]
    alone = [agent.predict(o) for o in observations]
    assert agent.predict_batch is not None
    together = agent.predict_batch(observations)
    np.testing.assert_allclose(np.stack(together), np.stack(alone), rtol=1e-5, atol=1e-5)
    assert np.array_equal(agent.predict_batch(observations[:1])[0], alone[0])  # a batch of one: the same
    common: dict[str, Any] = {
        "suite": "tabletop",
        "agent": "lerobot",
        "agent_args": {"path": str(wrist_model)},
        "limit": 2,
        "order": "file",
        "options": {"trials": 1, "level": ["L0"]},
        "progress": False,
    }
    evaluate(out=tmp_path / "one", **common)
    evaluate(out=tmp_path / "batch", batch=2, **common)
    one, batched = load_run(tmp_path / "one")[1], load_run(tmp_path / "batch")[1]
    assert all(r.status == "ok" for r in [*one, *batched]), [(r.status, r.error) for r in [*one, *batched]]

    def summary(records: Any) -> list[tuple[Any, ...]]:
        return [(r.episode_id, r.status, r.agent_info, r.prediction["steps"]) for r in records]

    assert summary(batched) == summary(one)
    assert all(r.timing["predict_batch_mean"] > 1 for r in batched)  # both trials on each call


@needs_lerobot
def test_a_checkpoint_with_a_camera_heedful_lacks_is_refused(tmp_path: Path) -> None:
    model = _untrained_act(tmp_path / "top", {"observation.images.top": 16})
    with pytest.raises(ConfigError, match=r"features heedful cannot provide: observation.images.top \[3, 16, 16\]"):
        LeRobotAgent(path=str(model))


@needs_lerobot
@pytest.mark.slow
@pytest.mark.render
def test_the_lerobot_agent_keeps_the_contract(wrist_model: Path) -> None:
    findings = check_agent("tabletop", "lerobot", {"path": str(wrist_model)}, episodes=2)
    assert len(findings.passed) == 5 and not findings.problems  # builds, same records rebuilt and reversed


@needs_lerobot
@pytest.mark.slow
@pytest.mark.render
def test_an_act_policy_trained_by_lerobot_is_run_and_scored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data, train_dir, run_dir = tmp_path / "demos", tmp_path / "train", tmp_path / "run"
    tasks = [arg for label in LABELS for arg in ("--task", label)]
    export = ["demos", "tabletop", "--format", "lerobot", "--cameras", "--image-size", str(SIZE), "--per-task", "2"]
    assert main([*export, *tasks, "--out", str(data), "--no-progress"]) == 0

    # lerobot's own training script, as a user runs it; one thread, so a busy second core does not stall it
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_LEROBOT_HOME": str(tmp_path / "hf"), "OMP_NUM_THREADS": "1"}
    dataset = ["--dataset.repo_id=heedful/tabletop-demos", f"--dataset.root={data}", f"--output_dir={train_dir}"]
    trained = subprocess.run(
        [sys.executable, "-m", "lerobot.scripts.lerobot_train", *dataset, *TRAIN_FLAGS],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert trained.returncode == 0, trained.stdout[-2000:] + trained.stderr[-4000:]
    losses = [float(x) for x in re.findall(r"step:\S+ .*? loss:([0-9.]+)", trained.stdout + trained.stderr)]
    assert len(losses) == 3 and losses[-1] < losses[0], losses
    model = train_dir / "checkpoints" / "last" / "pretrained_model"

    seen: list[np.ndarray] = []
    predict = LeRobotAgent.predict

    def recorded(self: LeRobotAgent, observation: dict[str, Any]) -> np.ndarray:
        seen.append(predict(self, observation))
        return seen[-1]

    monkeypatch.setattr(LeRobotAgent, "predict", recorded)
    run = ["run", "tabletop", "--agent", "lerobot", "--agent-arg", f"path={model}", "--level", "L0", "--trials", "1"]
    assert main([*run, "--limit", "2", "--out", str(run_dir), "--no-progress"]) == 0
    manifest, records = load_run(run_dir)
    assert len(records) == 2 and all(r.status == "ok" for r in records)
    calls = sum(int(r.agent_info["predictions"]) for r in records)  # one chunk of 10 actions a call (ACT)
    acting = [int(r.scores["acting_steps"]) for r in records]
    assert calls == len(seen) == sum(-(-steps // 10) for steps in acting)  # the horizon may cut the last chunk
    actions = np.concatenate(seen)
    assert actions.shape == (10 * calls, 7) and np.isfinite(actions).all()
    assert all(r.timing["lerobot_predict_ms_mean"] > 0 for r in records)
    agent = manifest.agent
    assert (agent["name"], agent["policy"], agent["path"], agent["image_size"]) == ("lerobot", "act", str(model), SIZE)
    assert agent["weights_sha256"] == hashlib.sha256((model / "model.safetensors").read_bytes()).hexdigest()
    assert agent["cameras"] == ["agentview", "wrist"] and agent["input_features"]["observation.state"]["shape"] == [8]
