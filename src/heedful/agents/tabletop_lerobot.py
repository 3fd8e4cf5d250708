"""`lerobot`: a LeRobot pretrained policy (a `lerobot-train` checkpoint) run in-process as a tabletop controller.

    heedful run tabletop --agent lerobot --agent-arg path=outputs/train/checkpoints/last/pretrained_model

The policy is loaded with lerobot's own `PreTrainedPolicy.from_pretrained` and the pre/post-processor pipelines
lerobot 0.4 saves beside the weights (normalisation, batching, device), and stepped with `select_action` once
per control step, as `lerobot-eval` does (the policy keeps its own action queue; `policy.reset()` at each
trial). Observations get the names `heedful demos tabletop --format lerobot` writes: the agentview and wrist
images as `observation.images.image` / `observation.images.wrist_image`, the 8-D proprio as
`observation.state`, the instruction as `task`; the 7-D action is a `delta_eef` action. Only the cameras the
checkpoint's input features name are rendered, at the size it was trained on (declared as `image_size`;
images of another size are resampled, see `_resize`). Inference runs on one torch thread, and torch's
generator is seeded from each episode's seed, so even a sampling policy gives the same records in any order,
in one process or in a pool.

An ACT policy without temporal ensembling is deterministic, and its `select_action` only hands out, one a step, the
first `n_action_steps` actions of a chunk it predicts from the observation of the chunk's first step: for it, the
agent answers that whole chunk at once (the same actions, one policy call instead of `n_action_steps`) and
declares `predict_batch`, which predicts the chunks of many observations in one forward pass (`heedful run
--batch K`). Such a policy needs no seed, so it declares no `begin_trial`. Other policies keep the step-by-step
`select_action` (their queue, observation history or noise is per trial) and are not batched.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import io
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from heedful.errors import AgentInterfaceError, ConfigError, MissingDependencyError
from heedful.extras import needs
from heedful.learning.torch_import import guard_triton
from heedful.requirements import Requirement
from heedful.sims.tabletop.config import IMAGE_KEYS
from heedful.suites.tabletop.demos import CAMERA_KEYS
from heedful.suites.tabletop.lerobot_demos import IMAGE_FEATURES, ROBOT_TYPE

STATE_FEATURE = "observation.state"
ACTION_FEATURE = "action"
# LeRobot image feature -> heedful camera, as the export names them
FEATURE_CAMERAS = {IMAGE_FEATURES[key]: camera for camera, key in CAMERA_KEYS.items()}
CONFIG_FILE, WEIGHTS_FILE = "config.json", "model.safetensors"
PROCESSOR_FILES = ("policy_preprocessor.json", "policy_postprocessor.json")
_HINT = (
    'install lerobot: pip install "heedful[lerobot]", or on a CPU-only machine pip install -e ".[lerobot-deps]" '
    "and pip install --no-deps lerobot==0.4.4 (see the README)"
)


class LeRobotAgent:
    """A LeRobot pretrained policy (a `lerobot-train` checkpoint) run in-process as a controller.

    Args:
        path: The checkpoint's `pretrained_model` directory (`config.json`, `model.safetensors` and the
            processor files), e.g. `outputs/train/checkpoints/last/pretrained_model`; a checkpoint directory
            holding one is accepted too.
        device: Where the policy runs (`cpu` by default, whatever device it was trained on).
    """

    name = "lerobot"

    @staticmethod
    def requirements(agent_args: dict[str, Any]) -> tuple[Requirement, ...]:
        """lerobot and torch."""
        return needs("lerobot", "torch")

    cameras: tuple[str, ...] = ()  # set per checkpoint: the cameras its input features name
    image_size: int | None = None  # set per checkpoint: the suite renders at the size it was trained on
    # set per checkpoint (see the module docstring): a sampling policy's seed, or a chunk policy's batched answers
    begin_trial: Callable[[Any, int], None] | None = None
    predict_batch: Callable[[Sequence[dict[str, Any]]], list[NDArray[np.float64]]] | None = None

    def __init__(self, *, path: str | None = None, device: str = "cpu") -> None:
        self.path = _model_dir(path)
        os.environ.setdefault("HF_HUB_OFFLINE", "1")  # a local directory only: never reach a hub
        guard_triton()  # lerobot imports torchvision, which imports torch's compiler stack (and triton)
        try:
            import torch

            configs = importlib.import_module("lerobot.configs.policies")
            factory = importlib.import_module("lerobot.policies.factory")
            utils = importlib.import_module("lerobot.policies.utils")
        except ImportError as exc:
            raise MissingDependencyError(f"--agent lerobot needs lerobot (>= 0.4) and torch ({exc}): {_HINT}") from exc
        torch.set_num_threads(1)  # one thread: the same floats in a serial run and in each pool worker
        try:
            self.config = configs.PreTrainedConfig.from_pretrained(self.path)
        except Exception as exc:  # draccus and lerobot raise many kinds; all mean an unreadable config
            raise ConfigError(f"cannot read the LeRobot policy config {self.path / CONFIG_FILE}: {exc}") from exc
        self.config.device = device
        self.images = _image_features(self.path, self.config)
        self.cameras = tuple(c for c in IMAGE_KEYS if c in self.images.values())
        sizes = {tuple(self.config.input_features[key].shape[1:]) for key in self.images}
        square = [height for height, width in sizes if height == width]
        if len(sizes) == 1 and square:  # one square size: the suite renders at it (other sizes are resampled)
            self.image_size = int(square[0])
        self.device = torch.device(device)
        self._prepare = utils.prepare_observation_for_inference
        with contextlib.redirect_stdout(io.StringIO()):  # lerobot prints "Loading weights from local directory"
            self.policy = factory.get_policy_class(self.config.type).from_pretrained(self.path, config=self.config)
        self.preprocessor, self.postprocessor = factory.make_pre_post_processors(
            self.config,
            pretrained_path=str(self.path),
            preprocessor_overrides={"device_processor": {"device": device}},
        )
        self.weights_sha256 = hashlib.sha256((self.path / WEIGHTS_FILE).read_bytes()).hexdigest()
        self._task, self._seed = "", 0
        self._calls, self._ms = 0, 0.0
        self.chunked = answers_whole_chunks(self.config)
        if self.chunked:
            self.predict_batch = self._predict_batch
        else:
            self.begin_trial = self._begin_trial

    def _begin_trial(self, trial: Any, seed: int) -> None:
        self._seed = int(seed)  # only the episode's seed is read: it seeds a sampling policy's noise

    def reset(self) -> None:
        import torch

        guard_triton()  # a trial may have rendered with EGL since the last one (see heedful.learning.torch_import)
        torch.manual_seed(self._seed)
        self.policy.reset()  # clears the action queue (and any observation history) of the last trial
        self.preprocessor.reset()
        self.postprocessor.reset()
        self._calls, self._ms = 0, 0.0

    def set_instruction(self, instruction: str) -> None:
        self._task = instruction

    def predict(self, observation: dict[str, Any]) -> NDArray[np.float64]:
        """The policy's next action, (1, 7); a chunk policy's next `n_action_steps` actions (see the module
        docstring)."""
        import torch

        start = time.perf_counter()
        chunk: NDArray[np.float64]
        if self.chunked:
            chunk = self._chunks([observation], [self._task])[0]
        else:
            with torch.inference_mode():
                # lerobot's own conversion (HxWx3 uint8 -> float CHW in [0, 1], batch dim), as lerobot-record runs
                batch = self._prepare(self._frame(observation), self.device, self._task, ROBOT_TYPE)
                action = self.postprocessor(self.policy.select_action(self.preprocessor(batch)))
            chunk = np.asarray(action.detach().cpu().numpy(), dtype=np.float64)
            _check_actions(chunk, (1, 7))
        self._calls += 1
        self._ms += (time.perf_counter() - start) * 1000.0
        return chunk

    def _predict_batch(self, observations: Sequence[dict[str, Any]]) -> list[NDArray[np.float64]]:
        """`predict` for each observation (its instruction read from `prompt`), in one forward pass."""
        return list(self._chunks(observations, [str(o.get("prompt", "")) for o in observations]))

    def _frame(self, observation: dict[str, Any]) -> dict[str, NDArray[Any]]:
        """The observation under the checkpoint's feature names, images at its input size."""
        frame: dict[str, NDArray[Any]] = {}
        if STATE_FEATURE in self.config.input_features:
            frame[STATE_FEATURE] = np.asarray(observation["state"], dtype=np.float32)
        for feature, camera in self.images.items():
            size = tuple(self.config.input_features[feature].shape[1:])
            frame[feature] = _resize(np.asarray(observation[IMAGE_KEYS[camera]], dtype=np.uint8), size)
        return frame

    def _chunks(self, observations: Sequence[dict[str, Any]], tasks: Sequence[str]) -> NDArray[np.float64]:
        """A chunk policy's first `n_action_steps` actions for each observation, (N, n_action_steps, 7): what its
        `select_action` would hand out over the next steps (the queue it fills from `predict_action_chunk`)."""
        import torch

        with torch.inference_mode():
            prepared = [
                self._prepare(self._frame(o), self.device, task, ROBOT_TYPE)
                for o, task in zip(observations, tasks, strict=True)
            ]
            batch = {
                key: torch.cat([p[key] for p in prepared]) if torch.is_tensor(value) else [p[key] for p in prepared]
                for key, value in prepared[0].items()
            }
            predicted = self.policy.predict_action_chunk(self.preprocessor(batch))
            actions = self.postprocessor(predicted[:, : self.config.n_action_steps])
        chunks = np.asarray(actions.detach().cpu().numpy(), dtype=np.float64)
        _check_actions(chunks, (len(observations), self.config.n_action_steps, 7))
        return chunks

    def trial_report(self) -> tuple[dict[str, Any], dict[str, float]]:
        """Policy calls this trial and their mean wall time (images resized, processors and policy)."""
        return {"predictions": self._calls}, {"lerobot_predict_ms_mean": self._ms / max(self._calls, 1)}

    def describe(self) -> dict[str, Any]:
        lerobot = importlib.import_module("lerobot")
        return {
            "name": self.name,
            "path": str(self.path),
            "policy": self.config.type,
            "weights_sha256": self.weights_sha256,
            "input_features": {
                key: {"type": feature.type.value, "shape": list(feature.shape)}
                for key, feature in self.config.input_features.items()
            },
            "cameras": list(self.cameras),
            "image_size": self.image_size,
            "actions_per_call": int(self.config.n_action_steps) if self.chunked else 1,
            "device": str(self.device),
            "lerobot": getattr(lerobot, "__version__", None),
        }


def answers_whole_chunks(config: Any) -> bool:
    """Whether the policy's `select_action` only hands out a predicted chunk one action a step, with no noise: ACT
    without temporal ensembling (its latent is zero at inference)."""
    return str(config.type) == "act" and getattr(config, "temporal_ensemble_coeff", None) is None


def _check_actions(actions: NDArray[np.float64], shape: tuple[int, ...]) -> None:
    """An AgentInterfaceError unless `actions` has `shape` and finite entries."""
    if actions.shape != shape:
        raise AgentInterfaceError(f"the LeRobot policy returned an action of shape {actions.shape}, not {shape}")
    rows = actions.reshape(-1, shape[-1])
    bad = ~np.isfinite(rows).all(axis=1)
    if bad.any():
        raise AgentInterfaceError(f"the LeRobot policy returned a non-finite action {rows[bad][0].tolist()}")


def _model_dir(path: str | None) -> Path:
    """The `pretrained_model` directory `path` names (or holds), checked before lerobot is imported."""
    if path is None:
        raise ConfigError(
            "the lerobot agent needs a checkpoint: --agent-arg path=DIR, the pretrained_model directory "
            "lerobot-train writes (e.g. outputs/train/checkpoints/last/pretrained_model)"
        )
    root = Path(path)
    if not root.is_dir():
        raise ConfigError(f"--agent-arg path={path}: no such directory; give a LeRobot pretrained_model directory")
    if not (root / CONFIG_FILE).is_file() and (root / "pretrained_model" / CONFIG_FILE).is_file():
        root = root / "pretrained_model"  # a checkpoint directory (checkpoints/last) holds it
    missing = [name for name in (CONFIG_FILE, WEIGHTS_FILE, *PROCESSOR_FILES) if not (root / name).is_file()]
    if CONFIG_FILE in missing or WEIGHTS_FILE in missing:
        raise ConfigError(
            f"{root} is not a LeRobot pretrained_model directory (no {' or '.join(missing[:2])}): give the "
            "pretrained_model directory of a lerobot-train checkpoint, e.g. outputs/train/checkpoints/last/"
            "pretrained_model"
        )
    if missing:  # before lerobot 0.4 the normalisation statistics lived inside the model
        raise ConfigError(
            f"{root} has no {' or '.join(missing)} (a checkpoint from before lerobot 0.4?): convert it with "
            f"python -m lerobot.processor.migrate_policy_normalization --pretrained-path {root}"
        )
    return root


def _image_features(root: Path, config: Any) -> dict[str, str]:
    """The checkpoint's image features -> heedful cameras; a ConfigError for inputs heedful cannot provide."""
    images: dict[str, str] = {}
    problems: list[str] = []
    for key, feature in config.input_features.items():
        shape = tuple(feature.shape)
        if key in FEATURE_CAMERAS and len(shape) == 3 and shape[0] == 3:
            images[key] = FEATURE_CAMERAS[key]
        elif key == STATE_FEATURE and shape == (8,):
            continue
        else:
            problems.append(f"{key} {list(shape)}")
    action = config.output_features.get(ACTION_FEATURE)
    if action is None or tuple(action.shape) != (7,):
        problems.append(f"output {ACTION_FEATURE} {list(action.shape) if action is not None else 'missing'}")
    if problems:
        offered = ", ".join([*(f"{k} [3, H, W]" for k in FEATURE_CAMERAS), f"{STATE_FEATURE} [8]", "action [7]"])
        raise ConfigError(
            f"the policy in {root} has features heedful cannot provide: {', '.join(problems)}; heedful offers "
            f"{offered} (the features of `heedful demos tabletop --format lerobot`): train on such an export"
        )
    return images


def _resize(image: NDArray[np.uint8], size: tuple[int, ...]) -> NDArray[np.uint8]:
    """`image` (H, W, 3) at the policy's input size (h, w), where the suite rendered another size.

    The rule is pixel-centre nearest sampling (torch's `nearest-exact`): the simulator renders without
    multisampling, each pixel sampled at its centre, so sampling a larger render at the centres of the smaller
    grid gives what the simulator would have rendered at that size, i.e. what an export at `--image-size`
    stored (98.8% of agentview pixels and 99.7% of wrist pixels identical from 224 to 64). Smoothing filters
    (area, bilinear) do not: they blur edges the training images never had.
    """
    if image.shape[:2] == size:
        return image
    import torch

    chw = torch.from_numpy(np.ascontiguousarray(image)).permute(2, 0, 1)[None]
    resized = torch.nn.functional.interpolate(chw, size=(int(size[0]), int(size[1])), mode="nearest-exact")
    return np.ascontiguousarray(resized[0].permute(1, 2, 0).numpy())
