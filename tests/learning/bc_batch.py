"""What the bc tests check of `predict_batch` on a trained model."""

from __future__ import annotations

import numpy as np

from heedful.agents.tabletop_bc import BCAgent


def check_batch_answers(agent: BCAgent) -> None:
    """predict_batch answers each observation as predict does, up to the last bits: torch's CPU kernels are not
    batch-invariant (a batch's rows round differently from one row alone), so lockstep bc runs may differ there."""
    rng = np.random.default_rng(0)
    objects = tuple({"name": f"o{j}", "shape": "cube", "color": "red", "size": "small"} for j in range(4))
    observations = [
        {
            "state": rng.normal(size=8),
            "prompt": f"Pick up the block {i % 3}.",
            "step": i,
            "object_poses": rng.normal(size=(4, 7)),
            "objects": objects,
            **{key: rng.integers(0, 256, (32, 32, 3), dtype=np.uint8) for key in ("image", "wrist_image")},
        }
        for i in range(6)
    ]
    alone = []
    for observation in observations:
        agent.reset()
        agent.set_instruction(observation["prompt"])
        alone.append(agent.predict(observation))
    together = agent.predict_batch(observations)
    assert len(together) == 6 and all(a.shape == (agent.replan, 7) for a in together)
    np.testing.assert_allclose(np.stack(together), np.stack(alone), rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(agent.predict_batch(observations[:1])[0], alone[0])  # a batch of one: the same
