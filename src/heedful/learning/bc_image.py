"""`bc-image`: the `bc-state` head over camera images instead of object state.

Each camera has its own small CNN, trained from scratch (four strided 3x3/5x5 convolutions, then a linear
layer: 128 features a camera); the features of all cameras and the standardised 8-D proprio form the state
vector of a `BCStatePolicy` head, which joins the instruction by FiLM or concatenation and regresses the chunk
of delta_eef actions. Images enter as uint8 (B, cameras, H, W, 3), as rendered; training shifts them by up
to `shift` pixels (replicate padding, then a random crop: the augmentation of DrQ), from a generator the
trainer seeds per batch so that a resumed training draws the same shifts as an uninterrupted one.
"""

from __future__ import annotations

from typing import Any

from heedful.learning.bc_state import BCStatePolicy
from heedful.learning.features import PROPRIO
from heedful.learning.torch_import import guard_triton

guard_triton()
import torch  # noqa: E402  (after the guard)
from torch import nn  # noqa: E402

FEATURES_PER_CAMERA = 128


class ConvEncoder(nn.Module):
    """(B, 3, size, size) float in [-0.5, 0.5] -> (B, FEATURES_PER_CAMERA)."""

    def __init__(self, size: int) -> None:
        super().__init__()
        if size < 16 or size % 16:
            raise ValueError(f"image size must be a multiple of 16 pixels, got {size}")
        self.convs = nn.Sequential(
            nn.Conv2d(3, 32, 5, stride=2, padding=2),
            nn.ReLU(),
            nn.Conv2d(32, 64, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Conv2d(64, 64, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Conv2d(64, 64, 3, stride=2, padding=1),
            nn.ReLU(),
        )
        self.out = nn.Linear(64 * (size // 16) ** 2, FEATURES_PER_CAMERA)

    def forward(self, image: torch.Tensor) -> torch.Tensor:
        features: torch.Tensor = torch.relu(self.out(self.convs(image).flatten(1)))
        return features


def random_shift(images: torch.Tensor, pad: int, generator: torch.Generator) -> torch.Tensor:
    """uint8 (B, C, H, W, 3) shifted by up to `pad` pixels each way (one shift per sample, all its cameras)."""
    if pad == 0:
        return images
    batch, _, height, width, _ = images.shape
    padded = nn.functional.pad(
        images.permute(0, 1, 4, 2, 3).float().flatten(1, 2), (pad, pad, pad, pad), mode="replicate"
    ).view(batch, -1, 3, height + 2 * pad, width + 2 * pad)
    device = images.device  # the offsets come from the (CPU) generator; the shift runs where the images are
    offsets = torch.randint(0, 2 * pad + 1, (2, batch), generator=generator).to(device)
    rows = (offsets[0][:, None] + torch.arange(height, device=device))[:, :, None]
    cols = (offsets[1][:, None] + torch.arange(width, device=device))[:, None, :]
    shifted = padded[torch.arange(batch, device=device)[:, None, None], :, :, rows, cols]  # (B, H, W, C, 3)
    return shifted.permute(0, 3, 1, 2, 4).to(torch.uint8)


class BCImagePolicy(nn.Module):
    """images uint8 (B, cameras, size, size, 3), proprio (B, 8), language (B, L) -> standardised chunk."""

    def __init__(
        self,
        cameras: int,
        size: int,
        language_dim: int,
        horizon: int,
        hidden: int = 256,
        layers: int = 3,
        fusion: str = "film",
        shift: int = 4,
    ) -> None:
        super().__init__()
        self.cameras, self.size, self.shift = cameras, size, shift
        self.encoders = nn.ModuleList(ConvEncoder(size) for _ in range(cameras))
        self.head = BCStatePolicy(
            cameras * FEATURES_PER_CAMERA + PROPRIO, language_dim, horizon, hidden, layers, fusion
        )

    @property
    def action_mean(self) -> torch.Tensor:
        return self.head.action_mean

    @property
    def action_std(self) -> torch.Tensor:
        return self.head.action_std

    def set_statistics(self, proprio_mean: Any, proprio_std: Any, action_mean: Any, action_std: Any) -> None:
        """Standardise the proprio and the actions; the image features pass as they are (mean 0, std 1)."""
        features = self.cameras * FEATURES_PER_CAMERA
        mean = torch.cat([torch.zeros(features), torch.as_tensor(proprio_mean, dtype=torch.float32)])
        std = torch.cat([torch.ones(features), torch.as_tensor(proprio_std, dtype=torch.float32)])
        self.head.set_statistics(mean, std, action_mean, action_std)

    def augment(self, inputs: tuple[torch.Tensor, ...], generator: torch.Generator) -> tuple[torch.Tensor, ...]:
        """Training-time augmentation of (images, proprio): the images shifted."""
        images, proprio = inputs
        return random_shift(images, self.shift, generator), proprio

    def forward(self, images: torch.Tensor, proprio: torch.Tensor, language: torch.Tensor) -> torch.Tensor:
        pixels = images.to(torch.float32) / 255.0 - 0.5
        features = [encoder(pixels[:, i].permute(0, 3, 1, 2)) for i, encoder in enumerate(self.encoders)]
        out: torch.Tensor = self.head(torch.cat([*features, proprio], dim=1), language)
        return out

    def actions(self, images: torch.Tensor, proprio: torch.Tensor, language: torch.Tensor) -> torch.Tensor:
        """The chunk in action units (undoing the standardisation)."""
        return self.forward(images, proprio, language) * self.action_std + self.action_mean
