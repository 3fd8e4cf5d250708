"""`heedful.devices`: the GPU a worker's policy takes when it asks for plain "cuda"."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from heedful import devices
from heedful.devices import set_worker_index, spread_device, worker_index


@pytest.fixture(autouse=True)
def _worker_zero() -> Iterator[None]:
    yield
    set_worker_index(0)


def test_plain_cuda_goes_to_the_worker_s_gpu_modulo_the_gpus() -> None:
    assert [spread_device("cuda", worker=w, count=4) for w in range(6)] == [
        "cuda:0",
        "cuda:1",
        "cuda:2",
        "cuda:3",
        "cuda:0",
        "cuda:1",
    ]
    assert spread_device("cuda", worker=5, count=1) == "cuda:0"


def test_a_device_named_in_full_or_on_no_gpu_is_kept() -> None:
    for name in ("cpu", "cuda:1", "cuda:0", "mps"):
        assert spread_device(name, worker=3, count=4) == name
    assert spread_device("cuda", worker=3, count=0) == "cuda"  # torch then refuses it where it is used


def test_the_worker_index_defaults_to_the_process_s() -> None:
    assert worker_index() == 0 and spread_device("cuda", count=3) == "cuda:0"
    set_worker_index(5)
    assert worker_index() == 5 and spread_device("cuda", count=3) == "cuda:2"


def test_the_gpu_count_is_torch_s(monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    set_worker_index(3)
    assert spread_device("cuda") == "cuda:1"
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 0)
    assert spread_device("cuda") == "cuda"
    assert devices.worker_index() == 3
