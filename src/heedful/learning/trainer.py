"""Behaviour cloning with an L1 loss on standardised action chunks, with checkpoints, resume and progress.

Two policies: `bc-state` reads the object-centric state, `bc-image` the camera frames and the proprio
(`heedful.learning.bc_image`). Deterministic for a seed on CPU: the demos are read in file order, every epoch's
shuffle comes from a generator seeded by (seed, epoch), every batch's augmentation from one seeded by (seed,
epoch, batch) (so a resumed run draws the same batches as an uninterrupted one), and the network's
CPU kernels give the same floats for the same number of threads (recorded in the result). A held-out share
of demos (whole demos, chosen by the seed) gives a validation loss.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from heedful.errors import ConfigError, DatasetError
from heedful.learning.bc_state import FUSIONS
from heedful.learning.demo_reader import DemoSamples, read_demos
from heedful.learning.features import FEATURES_VERSION, PROPRIO
from heedful.learning.images import CAMERAS, check_cameras
from heedful.learning.language import EMBEDDING_MODEL, LANGUAGE_MODES, InstructionEmbedder
from heedful.learning.policy_files import CONFIG_FILE, POLICY_FORMAT, WEIGHTS_FILE, build_model
from heedful.learning.torch_import import guard_triton

POLICIES = ("bc-state", "bc-image")
CHECKPOINTS = "checkpoints"


@dataclass(frozen=True)
class TrainConfig:
    """What shapes a trained policy (a resume must match it)."""

    policy: str = "bc-state"
    language: str = "instruction"
    epochs: int = 30
    batch_size: int = 256
    lr: float = 1e-3
    weight_decay: float = 1e-4
    horizon: int = 8
    hidden: int = 256
    layers: int = 3
    fusion: str = "film"
    seed: int = 0
    val_fraction: float = 0.05
    per_task: int | None = None
    tasks: tuple[str, ...] = field(default=())
    cameras: tuple[str, ...] = CAMERAS  # bc-image only, like the two fields below
    image_size: int = 64
    shift: int = 4

    def check(self) -> None:
        """Raises ConfigError naming the first bad value."""
        if self.policy not in POLICIES:
            raise ConfigError(f"--policy must be one of {', '.join(POLICIES)}, got {self.policy!r}")
        if self.language not in LANGUAGE_MODES:
            raise ConfigError(f"--language must be one of {', '.join(LANGUAGE_MODES)}, got {self.language!r}")
        if self.fusion not in FUSIONS:
            raise ConfigError(f"--fusion must be one of {', '.join(FUSIONS)}, got {self.fusion!r}")
        for name in ("epochs", "batch_size", "horizon", "hidden", "layers"):
            if int(getattr(self, name)) < 1:
                raise ConfigError(f"--{name.replace('_', '-')} must be at least 1, got {getattr(self, name)}")
        if not 0.0 <= self.val_fraction < 0.5:
            raise ConfigError(f"--val-fraction must be in [0, 0.5), got {self.val_fraction}")
        if not self.lr > 0:
            raise ConfigError(f"--lr must be positive, got {self.lr}")
        if self.policy == "bc-image":
            if self.image_size < 16 or self.image_size % 16:
                raise ConfigError(f"--image-size must be a multiple of 16 pixels, got {self.image_size}")
            if not 0 <= self.shift < self.image_size // 2:
                raise ConfigError(f"--shift must be in [0, {self.image_size // 2}), got {self.shift}")
            try:
                check_cameras(self.cameras)
            except DatasetError as exc:
                raise ConfigError(f"--cameras: {exc}") from None


def _shaping(config: TrainConfig) -> dict[str, Any]:
    """The config fields a resume must match (the number of epochs may grow)."""
    return {k: v for k, v in asdict(config).items() if k != "epochs"}


def _recorded_shaping(recorded: dict[str, Any]) -> dict[str, Any]:
    """A config.json's "train" entry as `_shaping` gives it (fields added since then take their defaults)."""
    shaping = {**_shaping(TrainConfig()), **recorded}
    shaping.pop("epochs", None)
    for name in ("tasks", "cameras"):
        shaping[name] = tuple(shaping[name])
    return shaping


def _split(samples: DemoSamples, fraction: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng([seed, 7])
    held = set(rng.permutation(samples.demos)[: round(samples.demos * fraction)].tolist())
    is_val = np.isin(samples.demo_ids, sorted(held))
    return np.flatnonzero(~is_val), np.flatnonzero(is_val)


def _latest_checkpoint(out: Path) -> Path | None:
    found = sorted((out / CHECKPOINTS).glob("epoch_*.pt"))
    return found[-1] if found else None


def _check_resume(out: Path, config: TrainConfig) -> None:
    path = out / CONFIG_FILE
    if not path.is_file():
        if _latest_checkpoint(out) is not None:
            raise ConfigError(f"{out} holds checkpoints but no {CONFIG_FILE}; train into a new --out")
        return
    recorded = _recorded_shaping(json.loads(path.read_text(encoding="utf-8")).get("train", {}))
    if recorded != _shaping(config):
        changed = sorted(k for k in _shaping(config) if recorded.get(k) != _shaping(config)[k])
        raise ConfigError(
            f"{out} was trained with other options ({', '.join(changed)} differ); use the same options to resume "
            "or train into a new --out"
        )


def _finished(out: Path, config: TrainConfig) -> dict[str, Any] | None:
    """The recorded result when `out` already holds this training to `config.epochs` epochs, else None."""
    path = out / CONFIG_FILE
    if not (path.is_file() and (out / WEIGHTS_FILE).is_file()):
        return None
    result = json.loads(path.read_text(encoding="utf-8")).get("result", {})
    done = result.get("status") == "trained" and result.get("epochs_done") == config.epochs
    return dict(result) if done else None


def train(
    demos: Path,
    out: Path,
    config: TrainConfig,
    *,
    device: str = "cpu",
    progress: Callable[[int, int], None] | None = None,
    log: Callable[[str], None] = lambda _: None,
    map_frames: bool = True,
) -> dict[str, Any]:
    """Train `config.policy` on the demos under `demos` into `out` (resuming from its newest checkpoint).

    An image policy's frames are memory-mapped from a file in `out` (`map_frames`; its name is removed at once and
    its disk space freed when training ends), so the frames of the full camera set need not fit in memory; the
    batches are the same as with the frames in memory (`map_frames=False`).

    Returns the summary written to `out/config.json` under "result".

    Raises:
        ConfigError: a bad option, an unavailable device, or an `out` trained with other options.
        DatasetError: the demos are missing or malformed.
    """
    import torch

    config.check()
    if device == "cuda" and not torch.cuda.is_available():
        raise ConfigError("--device cuda: torch sees no CUDA device here; use --device cpu")
    if device not in ("cpu", "cuda"):
        raise ConfigError(f"--device must be cpu or cuda, got {device!r}")
    out = Path(out)
    _check_resume(out, config)
    done = _finished(out, config)
    if done is not None:
        log(f"{out} is already trained for {config.epochs} epochs with these options")
        return done
    started = time.perf_counter()
    image_policy = config.policy == "bc-image"
    samples = read_demos(
        Path(demos),
        config.horizon,
        tasks=set(config.tasks) or None,
        per_task=config.per_task,
        cameras=config.cameras if image_policy else (),
        image_size=config.image_size,
        # memory-mapped from a nameless file in `out`: the full camera set trains on a machine with less memory
        frames_dir=out if map_frames else None,
    )
    embeddings = InstructionEmbedder(config.language).embed(samples.instructions)
    train_rows, val_rows = _split(samples, config.val_fraction, config.seed)
    # No torch.use_deterministic_algorithms: it imports torch's compiler stack (triton on CUDA builds, which
    # crashed a test process here); the CPU kernels this network uses are deterministic for a thread count.
    torch.manual_seed(config.seed)
    model = build_model(asdict(config))
    inputs = _inputs(samples, image_policy)
    chunks = torch.from_numpy(samples.chunks)
    # one embedding per instruction, gathered per batch: a copy per sample cost 1.5 KB each (0.6 GB for 3,750 demos)
    table, instruction_ids = torch.from_numpy(embeddings), torch.from_numpy(samples.instruction_ids)
    fit_rows = torch.from_numpy(train_rows)
    standardised = inputs[-1][fit_rows]  # the state vector: object state, or an image policy's proprio
    model.set_statistics(
        standardised.mean(0),
        standardised.std(0),
        chunks[fit_rows].reshape(-1, 7).mean(0),
        chunks[fit_rows].reshape(-1, 7).std(0),
    )
    model.to(device)
    moved = _on_device((*inputs, chunks, instruction_ids, table), device, log)
    inputs, chunks, instruction_ids, table = moved[:-3], moved[-3], moved[-2], moved[-1]
    language = _Language(table, instruction_ids)
    guard_triton()  # the optimizer imports torch's compiler stack; this process may have rendered with EGL
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    history: list[dict[str, float]] = []
    first = 0
    latest = _latest_checkpoint(out)
    if latest is not None:
        saved = torch.load(latest, map_location=device, weights_only=True)
        model.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        history = [dict(h) for h in json.loads(saved["history"])]
        first = len(history)
        log(f"resuming from {latest} (epoch {first} of {config.epochs})")
    out.mkdir(parents=True, exist_ok=True)
    _write_config(out, config, samples, {"status": "training", "epochs_done": first, "history": history})
    batches = (len(train_rows) + config.batch_size - 1) // config.batch_size
    for epoch in range(first, config.epochs):
        model.train()
        epoch_start = time.perf_counter()
        order = fit_rows[
            torch.randperm(len(fit_rows), generator=torch.Generator().manual_seed(config.seed * 100_003 + epoch))
        ]
        total, count = 0.0, 0
        for b in range(batches):
            rows = order[b * config.batch_size : (b + 1) * config.batch_size].to(chunks.device)
            shifts = torch.Generator().manual_seed((config.seed * 100_003 + epoch) * 100_003 + b)
            batch = [x.to(device) for x in model.augment(tuple(x[rows] for x in inputs), shifts)]
            target = (chunks[rows].to(device) - model.action_mean) / model.action_std
            loss = torch.nn.functional.l1_loss(model(*batch, language[rows].to(device)), target)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()  # type: ignore[no-untyped-call]
            optimizer.step()
            total, count = total + loss.item() * len(rows), count + len(rows)
        entry = {"epoch": epoch + 1, "train_l1": total / max(count, 1), "seconds": 0.0}
        if len(val_rows):
            entry["val_l1"] = _evaluate(model, inputs, language, chunks, val_rows, device)
        entry["seconds"] = round(time.perf_counter() - epoch_start, 2)
        history.append(entry)
        (out / CHECKPOINTS).mkdir(exist_ok=True)
        torch.save(
            {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "history": json.dumps(history)},
            out / CHECKPOINTS / f"epoch_{epoch + 1:04d}.pt",
        )
        if progress is not None:
            progress(1, config.epochs)
        log(f"epoch {epoch + 1}: " + ", ".join(f"{k} {v:.4f}" for k, v in entry.items() if k.endswith("l1")))
    torch.save(model.to("cpu").state_dict(), out / WEIGHTS_FILE)
    result = {
        "status": "trained",
        "epochs_done": len(history),
        "history": history,
        "final_train_l1": history[-1]["train_l1"] if history else None,
        "final_val_l1": history[-1].get("val_l1") if history else None,
        "parameters": sum(p.numel() for p in model.parameters()),
        "weights_bytes": (out / WEIGHTS_FILE).stat().st_size,
        "seconds_this_call": round(time.perf_counter() - started, 2),
        "epoch_seconds_total": round(sum(h.get("seconds", 0.0) for h in history), 2),
        "threads": torch.get_num_threads(),
        "torch": torch.__version__,
    }
    _write_config(out, config, samples, result)
    return result


class _Language:
    """The instruction embedding of each sample, gathered from one row per instruction when indexed by rows."""

    def __init__(self, table: Any, instruction_ids: Any) -> None:
        self.table, self.instruction_ids = table, instruction_ids

    def __getitem__(self, rows: Any) -> Any:
        return self.table[self.instruction_ids[rows]]


def _on_device(tensors: tuple[Any, ...], device: str, log: Callable[[str], None]) -> tuple[Any, ...]:
    """The training tensors, moved to `device` once when they fit in half its free memory: each batch is then
    gathered and shifted there instead of on the CPU, which kept a GPU waiting (the shift's offsets still come from
    the CPU generator, and a shift is exact on any device, so the batches are the same)."""
    import torch

    size = sum(t.numel() * t.element_size() for t in tensors)
    if device != "cpu" and size > torch.cuda.mem_get_info()[0] // 2:
        log(f"the demos ({size / 1e9:.1f} GB) stay in host memory: too large for the device")
        moved = tensors
    else:
        moved = tuple(t.to(device) for t in tensors)
    return moved


def _inputs(samples: DemoSamples, image_policy: bool) -> tuple[Any, ...]:
    """The network's inputs over all samples: (state,) or (images, proprio)."""
    import torch

    if not image_policy:
        return (torch.from_numpy(samples.states),)
    assert samples.images is not None  # read with cameras
    return torch.from_numpy(samples.images), torch.from_numpy(samples.states[:, -PROPRIO:].copy())


def _evaluate(
    model: Any, inputs: tuple[Any, ...], language: _Language, chunks: Any, rows: np.ndarray, device: str
) -> float:
    import torch

    model.eval()
    total = 0.0
    with torch.no_grad():
        for start in range(0, len(rows), 1024):
            r = torch.from_numpy(rows[start : start + 1024]).to(chunks.device)
            target = (chunks[r].to(device) - model.action_mean) / model.action_std
            pred = model(*(x[r].to(device) for x in inputs), language[r].to(device))
            total += float(torch.nn.functional.l1_loss(pred, target, reduction="sum")) / target[0].numel()
    return total / len(rows)


def _write_config(out: Path, config: TrainConfig, samples: DemoSamples, result: dict[str, Any]) -> None:
    body = {
        "format": POLICY_FORMAT,
        "policy": config.policy,
        "features": FEATURES_VERSION,
        "embedding_model": EMBEDDING_MODEL,
        "horizon": config.horizon,
        "hidden": config.hidden,
        "layers": config.layers,
        "fusion": config.fusion,
        "language": config.language,
        **(
            {"cameras": list(config.cameras), "image_size": config.image_size, "recorded_size": samples.recorded_size}
            if config.policy == "bc-image"
            else {}
        ),
        "train": {**asdict(config), "tasks": list(config.tasks), "cameras": list(config.cameras)},
        "data": {
            "files": samples.files,
            "demos": samples.demos,
            "samples": len(samples),
            "instructions": len(samples.instructions),
        },
        "result": result,
    }
    tmp = out / (CONFIG_FILE + ".tmp")
    tmp.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
    tmp.replace(out / CONFIG_FILE)
