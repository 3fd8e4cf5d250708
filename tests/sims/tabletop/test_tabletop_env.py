"""The Gymnasium environment: conformance, reproducibility, reset options, state, truncation."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from heedful.errors import ConfigError
from heedful.sims.tabletop.config import SimConfig
from heedful.sims.tabletop.env import ENV_ID, TabletopEnv
from heedful.sims.tabletop.spec import default_scene
from heedful.world.objects import TableObject, TabletopState

NO_CAMERAS = SimConfig(cameras=(), privileged=True)


def rollout(
    env: TabletopEnv, seed: int, actions: np.ndarray
) -> tuple[list[dict[str, np.ndarray]], dict[str, np.ndarray]]:
    obs, _ = env.reset(seed=seed, options={"scene": default_scene(), "instruction": "pick up the red cube"})
    observations = [obs]
    for a in actions:
        obs, reward, terminated, truncated, _ = env.step(a)
        assert reward == 0.0 and not terminated and not truncated
        observations.append(obs)
    return observations, dict(env.trajectory().arrays())


def test_check_env_passes_without_cameras() -> None:
    env = TabletopEnv(config=NO_CAMERAS)
    check_env(env, skip_render_check=True)
    env.close()


@pytest.mark.render
def test_check_env_passes_with_cameras_and_rendering() -> None:
    env = gym.make(ENV_ID, render_mode="rgb_array")
    check_env(env.unwrapped)
    env.close()


def test_registered_id_makes_the_env() -> None:
    env = gym.make(ENV_ID, config=NO_CAMERAS)
    obs, info = env.reset(seed=1, options={"instruction": "do nothing"})
    assert info["instruction"] == "do nothing" and obs["state"].shape == (8,)
    assert obs["object_poses"].shape == (12, 7) and np.all(obs["object_poses"][5:] == 0)
    env.close()
    env = gym.make("heedful.sims.tabletop.env:heedful/Tabletop-v0", config=NO_CAMERAS)
    env.close()


@pytest.mark.render
def test_same_seed_rollouts_are_bitwise_identical() -> None:
    cfg = SimConfig(reset_jitter_m=0.015, reset_jitter_deg=20)
    actions = np.random.default_rng(5).uniform(-1, 1, size=(25, 7)).astype(np.float32)
    first_obs, first_arrays = rollout(TabletopEnv(config=cfg), 11, actions)
    second_obs, second_arrays = rollout(TabletopEnv(config=cfg), 11, actions)
    for a, b in zip(first_obs, second_obs, strict=True):
        assert a.keys() == b.keys() == {"image", "wrist_image", "state"}
        for key in a:
            assert a[key].tobytes() == b[key].tobytes(), key
    assert first_arrays.keys() == second_arrays.keys()
    for key in first_arrays:
        assert first_arrays[key].tobytes() == second_arrays[key].tobytes(), key
    other_obs, _ = rollout(TabletopEnv(config=cfg), 12, actions)
    assert other_obs[0]["image"].tobytes() != first_obs[0]["image"].tobytes()  # the seed moves the objects


def test_reset_options_accept_specs_dicts_and_decision_states_and_reject_the_rest() -> None:
    env = TabletopEnv(config=NO_CAMERAS)
    state = TabletopState(
        objects=(TableObject(name="o1", color="green", shape="cylinder", size="large", x=0.1, y=0.5),)
    )
    _, info = env.reset(options={"scene": state})
    assert info["object_names"] == ("o1",)
    _, info = env.reset(options={"scene": default_scene().model_dump()})
    assert info["object_names"][0] == "red_cube"
    with pytest.raises(ConfigError, match="unknown reset options"):
        env.reset(options={"scen": default_scene()})
    with pytest.raises(ConfigError, match="not a valid scene spec"):
        env.reset(options={"scene": {"objects": [{"name": "x"}]}})
    with pytest.raises(ConfigError, match="must be a string"):
        env.reset(options={"instruction": 3})
    with pytest.raises(ConfigError, match="render_mode"):
        TabletopEnv(render_mode="human")


def test_state_restore_and_truncation() -> None:
    env = TabletopEnv(config=SimConfig(cameras=(), max_episode_steps=12))
    env.reset(seed=0)
    actions = np.random.default_rng(0).uniform(-1, 1, size=(12, 7)).astype(np.float32)
    for a in actions[:4]:
        env.step(a)
    saved = env.get_state()
    states = [env.step(a)[0]["state"] for a in actions[4:]]
    truncated = env.step(actions[0])[3]
    assert truncated
    env.set_state(saved)
    again = [env.step(a)[0]["state"] for a in actions[4:]]
    assert all(x.tobytes() == y.tobytes() for x, y in zip(states, again, strict=True))


def test_abs_eef_action_space_bounds() -> None:
    env = TabletopEnv(config=SimConfig(cameras=(), action_space="abs_eef"))
    space = env.action_space
    assert isinstance(space, gym.spaces.Box) and space.shape == (7,) and space.low[2] > 0
    check_env(env, skip_render_check=True)
