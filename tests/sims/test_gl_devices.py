"""Choosing the EGL device a worker renders on (`--egl-devices`), and the renderer a process reports."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from heedful.cli import main
from heedful.errors import RenderDeviceError
from heedful.sims import gl_devices
from heedful.sims.gl_devices import (
    check_egl_devices,
    egl_device_count,
    parse_egl_devices,
    renderer_since,
    renderers_built,
    summarize,
    use_egl_device,
)


def test_device_lists_are_parsed_from_the_flag_or_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(gl_devices.EGL_DEVICES_ENV, raising=False)
    assert parse_egl_devices(None) == () and parse_egl_devices("0, 1,3") == (0, 1, 3) and parse_egl_devices([2]) == (2,)
    monkeypatch.setenv(gl_devices.EGL_DEVICES_ENV, "1,0")
    assert parse_egl_devices(None) == (1, 0) and parse_egl_devices("2") == (2,)  # the flag wins
    for bad in ("gpu0", "0,,1", "-1", ""):
        with pytest.raises(RenderDeviceError, match="EGL device ids"):
            parse_egl_devices(bad)


def test_each_distinct_renderer_is_listed_once_with_its_workers() -> None:
    gpu = {"platform": "egl", "egl_device": 0, "vendor": "NVIDIA Corporation", "renderer": "H200", "version": "4.6"}
    other = {**gpu, "egl_device": 1}
    assert summarize({}) is None
    assert summarize({2: gpu, 0: gpu, 1: other}) == [{**gpu, "workers": [0, 2]}, {**other, "workers": [1]}]


@pytest.mark.render
def test_a_device_this_machine_lacks_is_refused_by_name_before_the_run_starts(tmp_path: Path) -> None:
    count = egl_device_count()
    assert count >= 1
    check_egl_devices(list(range(count)))  # every device there is accepted
    with pytest.raises(RenderDeviceError, match=rf"EGL devices {count}, {count + 5}, which this machine does not"):
        check_egl_devices([0, count + 5, count])
    out = tmp_path / "run"
    argv = ["run", "tabletop", "--agent", "oracle", "--limit", "1", "--out", str(out), "--no-progress"]
    assert main([*argv, "--egl-devices", f"0,{count}"]) == 2  # a typed error, exit status 2
    assert not out.exists()  # refused before anything was written


@pytest.mark.render
def test_the_first_renderer_reports_what_its_context_says(monkeypatch: pytest.MonkeyPatch) -> None:
    from heedful.sims.tabletop.sim import TabletopSim
    from heedful.sims.tabletop.spec import ObjectSpec, SceneSpec

    before = renderers_built()
    cube = ObjectSpec(name="cube", shape="cube", color="red", size="large", x=0.0, y=0.5)  # type: ignore[arg-type]
    sim = TabletopSim(SceneSpec(objects=(cube,)))
    sim.render("agentview")
    sim.close()
    seen = renderer_since(before)
    assert seen is not None and renderer_since(renderers_built()) is None
    assert seen["platform"] == os.environ["MUJOCO_GL"]
    assert all(isinstance(seen[k], str) and seen[k] for k in ("vendor", "renderer", "version")), seen
    print(f"renderer here: {seen}")  # Mesa's llvmpipe on a machine without a GPU
    if seen["platform"] == "egl":  # this process has its EGL display now: it cannot move to another device
        monkeypatch.setenv(gl_devices.DEVICE_ID_ENV, "0")
        with pytest.raises(RenderDeviceError, match="cannot switch to device 1"):
            use_egl_device([0, 1], 1)
