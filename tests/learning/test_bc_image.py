"""bc-image on real recorded camera demos: frames read and reduced as the agent reduces them, the shift
augmentation, determinism and resume, refusals, and the bc agent rendering at the demos' size in a run."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import h5py
import numpy as np
import pytest
import torch
from bc_batch import check_batch_answers

from heedful.agents.tabletop_bc import BCAgent
from heedful.api import demos, evaluate, train
from heedful.errors import ConfigError, DatasetError
from heedful.learning.bc_image import random_shift
from heedful.learning.demo_reader import read_demos
from heedful.learning.images import reduce_frames
from heedful.learning.policy_files import load_policy
from heedful.runner import load_run

LABELS = ["s1_t00_pickup", "s2_t04_stack"]
RECORDED = 32
TINY = {"epochs": 2, "hidden": 32, "layers": 2, "batch_size": 64, "horizon": 4, "language": "none"}

pytestmark = pytest.mark.render


@pytest.fixture(scope="module")
def camera_demos(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("camera-demos")
    demos(out, per_task=3, tasks=LABELS, cameras=True, image_size=RECORDED)
    return out


def _weights(model_dir: Path) -> dict[str, torch.Tensor]:
    return dict(torch.load(model_dir / "model.pt", weights_only=True))


def test_frames_keep_their_size_or_are_box_filtered_down() -> None:
    frames = np.random.default_rng(0).integers(0, 256, (3, 32, 32, 3), dtype=np.uint8)
    assert reduce_frames(frames, 32) is frames
    small = reduce_frames(frames, 16)
    blocks = frames.reshape(3, 16, 2, 16, 2, 3).astype(np.float64).mean(axis=(2, 4))
    assert small.shape == (3, 16, 16, 3) and small.dtype == np.uint8
    assert np.abs(small - blocks).max() <= 1.0  # each pixel the mean of the 2x2 it covers (PIL: within a level)
    with pytest.raises(DatasetError, match="smaller than the policy's 64 px"):
        reduce_frames(frames, 64)
    with pytest.raises(DatasetError, match="square"):
        reduce_frames(frames[:, :, :16], 16)


def test_a_shift_moves_every_camera_of_a_sample_by_the_same_offset_within_the_pad() -> None:
    images = torch.randint(0, 256, (6, 2, 16, 16, 3), dtype=torch.uint8)
    shifted = random_shift(images, 2, torch.Generator().manual_seed(0))
    again = random_shift(images, 2, torch.Generator().manual_seed(0))
    assert torch.equal(shifted, again) and shifted.dtype == torch.uint8
    padded = torch.nn.functional.pad(images.permute(0, 1, 4, 2, 3).float().flatten(1, 2), (2, 2, 2, 2), "replicate")
    padded = padded.view(6, 2, 3, 20, 20).permute(0, 1, 3, 4, 2).to(torch.uint8)
    offsets = set()
    for b in range(6):
        found = [
            (i, j) for i in range(5) for j in range(5) if torch.equal(padded[b, :, i : i + 16, j : j + 16], shifted[b])
        ]
        assert found, f"sample {b} is not a crop of its padded images"
        offsets.add(found[0])
    assert len(offsets) > 1  # the samples are not all shifted alike
    assert torch.equal(random_shift(images, 0, torch.Generator()), images)


def test_every_step_has_its_frames_at_the_input_size(camera_demos: Path, tmp_path: Path) -> None:
    samples = read_demos(camera_demos, 4, cameras=("wrist", "agentview"), image_size=16)
    mapped = read_demos(camera_demos, 4, cameras=("wrist", "agentview"), image_size=16, frames_dir=tmp_path / "f")
    assert isinstance(mapped.images, np.memmap) and np.array_equal(mapped.images, samples.images)
    assert list((tmp_path / "f").iterdir()) == []  # the mapped file has no name left: nothing to clean up
    assert torch.equal(torch.from_numpy(mapped.images)[[5, 1]], torch.from_numpy(samples.images)[[5, 1]])
    assert samples.images is not None and samples.recorded_size == RECORDED
    assert samples.images.shape == (len(samples), 2, 16, 16, 3)
    with h5py.File(camera_demos / f"{LABELS[0]}_demo.hdf5", "r") as f:
        wrist = np.asarray(f["data/demo_0/obs/eye_in_hand_rgb"])
        agentview = np.asarray(f["data/demo_0/obs/agentview_rgb"])
    steps = len(wrist)
    assert np.array_equal(samples.images[:steps, 0], reduce_frames(wrist, 16))  # cameras in the order asked
    assert np.array_equal(samples.images[:steps, 1], reduce_frames(agentview, 16))
    assert read_demos(camera_demos, 4).images is None  # bc-state reads no frames


def test_bc_image_training_is_deterministic_resumes_exactly_and_learns(camera_demos: Path, tmp_path: Path) -> None:
    options: dict[str, Any] = {**TINY, "policy": "bc-image", "image_size": 16, "per_task": 2}
    whole = train(camera_demos, tmp_path / "whole", **options)
    again = train(camera_demos, tmp_path / "again", **options)
    train(camera_demos, tmp_path / "cut", **{**options, "epochs": 1})
    resumed = train(camera_demos, tmp_path / "cut", **options)
    wa, wb, wc = _weights(tmp_path / "whole"), _weights(tmp_path / "again"), _weights(tmp_path / "cut")
    assert all(torch.equal(wa[k], wb[k]) and torch.equal(wa[k], wc[k]) for k in wa)
    losses = [[(h["train_l1"], h.get("val_l1")) for h in r["history"]] for r in (whole, again, resumed)]
    assert losses[0] == losses[1] == losses[2]
    assert whole["history"][-1]["train_l1"] < whole["history"][0]["train_l1"]
    _, config = load_policy(tmp_path / "whole")
    assert config["policy"] == "bc-image" and config["cameras"] == ["agentview", "wrist"]
    assert config["image_size"] == 16 and config["recorded_size"] == RECORDED
    unshifted = train(camera_demos, tmp_path / "unshifted", **{**options, "shift": 0, "epochs": 1})
    assert unshifted["history"][0]["train_l1"] != whole["history"][0]["train_l1"]  # the shift is applied


def test_bc_image_refuses_demos_without_cameras_and_bad_options(camera_demos: Path, tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    demos(plain, per_task=1, tasks=LABELS[:1])
    with pytest.raises(DatasetError, match="--cameras"):
        train(plain, tmp_path / "m", policy="bc-image", **TINY)
    with pytest.raises(DatasetError, match="smaller than the policy's 64 px"):
        train(camera_demos, tmp_path / "m", policy="bc-image", image_size=64, **TINY)
    with pytest.raises(ConfigError, match="multiple of 16"):
        train(camera_demos, tmp_path / "m", policy="bc-image", image_size=40, **TINY)
    with pytest.raises(ConfigError, match="--cameras"):
        train(camera_demos, tmp_path / "m", policy="bc-image", cameras=("agentview", "top"), **TINY)
    with pytest.raises(ConfigError, match="--policy must be one of bc-state, bc-image"):
        train(camera_demos, tmp_path / "m", policy="bc-video", **TINY)


def test_the_bc_agent_runs_an_image_model_on_the_demos_render_size(camera_demos: Path, tmp_path: Path) -> None:
    train(camera_demos, tmp_path / "model", policy="bc-image", image_size=16, **TINY)
    options = {"suite": "tabletop", "agent": "bc", "agent_args": {"model": str(tmp_path / "model")}, "limit": 2}
    result = evaluate(**options, out=tmp_path / "run", options={"trials": 1, "level": ["L0"]}, progress=False)
    assert result.counts == {"ok": 2}
    manifest, records = load_run(tmp_path / "run")
    assert manifest.agent["policy"] == "bc-image" and manifest.agent["image_size"] == 16
    assert manifest.agent["cameras"] == ["agentview", "wrist"]
    assert all(r.agent_info["predictions"] >= 1 and r.timing["bc_predict_ms_mean"] > 0 for r in records)
    run_options = {"trials": 1, "level": ["L0"]}
    batched = evaluate(**options, out=tmp_path / "batched", options=run_options, progress=False, batch=2)
    assert batched.counts == {"ok": 2}
    assert [r.agent_info for r in load_run(tmp_path / "batched")[1]] == [r.agent_info for r in records]
    check_batch_answers(BCAgent(model=str(tmp_path / "model")))
    from heedful.capabilities import capabilities

    declared = capabilities(BCAgent(model=str(tmp_path / "model")))
    assert declared.image_size == RECORDED and declared.cameras == ("agentview", "wrist")
    assert not declared.object_state
