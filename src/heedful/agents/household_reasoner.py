"""`household/reasoner`: the paper's Reasoner (Section 4.1), a closed-loop language-model planner.

It is asked for the next tool call whenever a tool ends, with the prompt of Appendix 0.B (system prompt;
premap listing; what the human said; the command; the timestep history of tool calls and what was seen
after each; the latest map; the available actions and the response format). The text after the last
"Action:" must be one of the available actions, or the episode ends as a parsing failure.

In S_hum tasks it first asks whether there is enough evidence of the room the human walks to. "Not Enough
Evidence" calls Follow Human without asking for an action; the tool hands control back after 20 steps of
following (executors.FOLLOW_CHUNK; a look-around for a vanished human, at most a full turn, is finished
first) and the question is asked again, until the model answers "Enough Evidence" or the follow tool
reports that the human stopped or was lost. Then the action questions go on as usual. When the
human has not been seen (Follow Human is not available) the question is skipped (following is impossible).

With `constrain=True` both questions carry a JSON schema (`household_json`): the action is an enum of the
actions available now, the evidence answer one of the two choices, each after a bounded reasoning.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from heedful.agents.household_answers import EVIDENCE_CHOICES, NOT_ENOUGH, read_action, read_evidence
from heedful.agents.household_llm import CALL_LIMIT, CallLimitError, HouseholdLLMAgent, Turn
from heedful.agents.household_text import following_ended
from heedful.replies import AgentReply
from heedful.suites.household.observation import HouseholdObservation

FOLLOW = "Follow Human"


class ReasonerAgent(HouseholdLLMAgent):
    """The paper's Reasoner; options as for every `llm` agent (see `HouseholdLLMAgent`)."""

    name = "reasoner"
    templates = ("household-reasoner", "household-evidence")

    def act(self, observation: HouseholdObservation) -> AgentReply:
        turn = self.turn(observation)
        try:
            return self._decide(turn, observation)
        except CallLimitError as limit:
            return turn.end(CALL_LIMIT, str(limit))

    def _decide(self, turn: Turn, obs: HouseholdObservation) -> AgentReply:
        memory = obs.memory
        if self._evidence_pending(obs):
            form = self.choice_form(EVIDENCE_CHOICES)
            reading = turn.ask("evidence", "household-evidence", read_evidence, form)
            if reading.value is None:
                return turn.parse_failure("evidence", str(reading.reason))
            if reading.value == NOT_ENOUGH:
                return turn.reply(FOLLOW)
            memory["evidence"] = "enough"
        available = obs.available_actions
        reading = turn.ask(
            "action", "household-reasoner", partial(read_action, available=available), self.choice_form(available)
        )
        if reading.value is None:
            return turn.parse_failure("action", str(reading.reason))
        return turn.reply(reading.value)

    @staticmethod
    def _evidence_pending(obs: HouseholdObservation) -> bool:
        """Whether the evidence question is due now (S_hum, at the start or after a 20-step follow chunk)."""
        memory: dict[str, Any] = obs.memory
        if not obs.human_walks or "evidence" in memory:
            return False
        if FOLLOW not in obs.available_actions:
            memory["evidence"] = "skipped: the human was not seen"
            return False
        if following_ended(obs):
            memory["evidence"] = "the follow tool ended the following"
            return False
        last = obs.history[-1].action if obs.history else None
        return last in (None, FOLLOW)
