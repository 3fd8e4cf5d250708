"""A trained policy's directory: `config.json` (what it is, how it was trained, what came of it) and
`model.pt` (the weights and standardisation buffers, loaded with `weights_only=True`).

`checkpoints/epoch_NNNN.pt` hold the model and optimizer after each epoch; `heedful train` with the same
`--out` and options resumes from the newest one.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from heedful.errors import ConfigError
from heedful.learning.bc_image import BCImagePolicy
from heedful.learning.bc_state import BCStatePolicy
from heedful.learning.features import FEATURES_VERSION, STATE_WIDTH
from heedful.learning.language import EMBEDDING_DIM

POLICY_FORMAT = "heedful-bc-policy/1"
CONFIG_FILE = "config.json"
WEIGHTS_FILE = "model.pt"


def build_model(config: dict[str, Any]) -> BCStatePolicy | BCImagePolicy:
    """An untrained network of the shape `config` names (a trainer config, or a model's config.json)."""
    shape = (int(config["horizon"]), int(config["hidden"]), int(config["layers"]), str(config["fusion"]))
    if config.get("policy", "bc-state") == "bc-image":
        train = config.get("train", config)
        return BCImagePolicy(
            len(config["cameras"]), int(config["image_size"]), EMBEDDING_DIM, *shape, shift=int(train["shift"])
        )
    return BCStatePolicy(STATE_WIDTH, EMBEDDING_DIM, *shape)


def read_config(model_dir: Path) -> dict[str, Any]:
    """The config of a trained model directory.

    Raises:
        ConfigError: no trained model there, or one of another format.
    """
    path = Path(model_dir) / CONFIG_FILE
    if not (Path(model_dir) / WEIGHTS_FILE).is_file() or not path.is_file():
        raise ConfigError(
            f"{model_dir} holds no trained policy ({CONFIG_FILE} and {WEIGHTS_FILE}); train one with "
            f"`heedful train tabletop --demos DIR --out {model_dir}`"
        )
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path} is not valid JSON ({exc})") from None
    if not isinstance(config, dict) or config.get("format") != POLICY_FORMAT:
        raise ConfigError(f"{path} is not a {POLICY_FORMAT} config")
    if config.get("features") != FEATURES_VERSION:
        raise ConfigError(
            f"{path} was trained on features {config.get('features')!r}; this heedful reads {FEATURES_VERSION!r}"
        )
    return config


def load_policy(model_dir: Path, device: str = "cpu") -> tuple[BCStatePolicy | BCImagePolicy, dict[str, Any]]:
    """The trained network (in eval mode) and its config."""
    import torch

    config = read_config(model_dir)
    model = build_model(config)
    state = torch.load(Path(model_dir) / WEIGHTS_FILE, map_location=device, weights_only=True)
    model.load_state_dict(state)
    model.eval()
    return model.to(device), config
