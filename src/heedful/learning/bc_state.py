"""`bc-state`: an MLP from the object-centric state to a chunk of delta_eef actions, conditioned on the
instruction embedding by FiLM (each hidden layer scaled and shifted by a projection of the embedding) or by
concatenation. Inputs and actions are standardised with statistics of the training set, kept in the model's
buffers so that a saved model carries them.
"""

from __future__ import annotations

from typing import Any

from heedful.learning.demo_reader import ACTION_DIM
from heedful.learning.torch_import import guard_triton

guard_triton()
import torch  # noqa: E402  (after the guard)
from torch import nn  # noqa: E402

FUSIONS = ("film", "concat")


class BCStatePolicy(nn.Module):
    """state (B, S) float32, language (B, L) -> standardised action chunk (B, horizon, 7)."""

    state_mean: torch.Tensor  # buffers, saved with the weights
    state_std: torch.Tensor
    action_mean: torch.Tensor
    action_std: torch.Tensor

    def __init__(
        self, state_dim: int, language_dim: int, horizon: int, hidden: int = 256, layers: int = 3, fusion: str = "film"
    ) -> None:
        super().__init__()
        if fusion not in FUSIONS:
            raise ValueError(f"fusion must be one of {FUSIONS}, got {fusion!r}")
        self.horizon, self.fusion, self.layers = horizon, fusion, layers
        extra = language_dim if fusion == "concat" else 0
        self.input = nn.Linear(state_dim + extra, hidden)
        self.hidden = nn.ModuleList(nn.Linear(hidden, hidden) for _ in range(layers - 1))
        self.film = nn.Linear(language_dim, 2 * hidden * layers) if fusion == "film" else None
        self.head = nn.Linear(hidden, horizon * ACTION_DIM)
        for name, size in (("state_mean", state_dim), ("state_std", state_dim)):
            self.register_buffer(name, torch.zeros(size) if "mean" in name else torch.ones(size))
        self.register_buffer("action_mean", torch.zeros(ACTION_DIM))
        self.register_buffer("action_std", torch.ones(ACTION_DIM))

    def set_statistics(self, state_mean: Any, state_std: Any, action_mean: Any, action_std: Any) -> None:
        """Standardisation statistics (a standard deviation below 1e-3 counts as 1e-3: one-hots, constants)."""
        for name, value in (
            ("state_mean", state_mean),
            ("state_std", state_std),
            ("action_mean", action_mean),
            ("action_std", action_std),
        ):
            tensor = torch.as_tensor(value, dtype=torch.float32)
            getattr(self, name).copy_(tensor.clamp(min=1e-3) if name.endswith("std") else tensor)

    def augment(self, inputs: tuple[torch.Tensor, ...], generator: torch.Generator) -> tuple[torch.Tensor, ...]:
        """Training-time augmentation of the inputs (the state): none for object state."""
        return inputs

    def forward(self, state: torch.Tensor, language: torch.Tensor) -> torch.Tensor:
        x = (state - self.state_mean) / self.state_std
        if self.fusion == "concat":
            x = torch.cat([x, language], dim=1)
        h = self.input(x)
        film = None if self.film is None else self.film(language).chunk(2 * self.layers, dim=1)
        for i in range(self.layers):
            if film is not None:
                h = h * (1.0 + film[2 * i]) + film[2 * i + 1]
            h = torch.relu(h)
            if i < self.layers - 1:
                h = self.hidden[i](h)
        out: torch.Tensor = self.head(h)
        return out.view(-1, self.horizon, ACTION_DIM)

    def actions(self, state: torch.Tensor, language: torch.Tensor) -> torch.Tensor:
        """The chunk in action units (undoing the standardisation)."""
        return self.forward(state, language) * self.action_std + self.action_mean
