"""What a planner's observation tells of the human (issue 40's leak check): `human_walks` and `human_carrying`
come from the task's words, never from its hidden state, and the human's whereabouts only from sightings."""

from __future__ import annotations

from household_data import small_episodes

from heedful.suites.household import language as lang
from heedful.suites.household.observation import build_observation
from heedful.suites.household.runtime import TaskEnv


def test_the_human_fields_say_no_more_than_the_words_and_the_sightings() -> None:
    for episode in small_episodes():
        env = TaskEnv.start(episode)
        obs = build_observation(env, 0)
        command = lang.parse_command(obs.command)
        assert command is not None
        # S_hum is "Bring a ... to me. I will be ...": the agent knows from the words that the human walks off
        assert obs.human_walks == (command.goal_kind == "human")
        # S_obj is "I took a <target> and moved it with me": the words name what the human carried
        said = lang.moved_object_place(obs.communication, command.category)
        assert obs.human_carrying == (command.category if said is not None else None)
        # the human is placed only where it was seen: at the start (S_hum, in view) or on the carry walk (S_obj)
        track = env.map.human_track
        assert (obs.human.first_room is None) == (not track)
        assert all(step <= 0 for step, _, _ in track)
