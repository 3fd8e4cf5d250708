"""The household suite: Situated Instruction Following (PnP, S_obj, S_hum) on `heedful.sims.household`.

Start with `suite.SUITE`, the suite declared in five parts (registered as `household`); episodes are
`model.HouseholdEpisode`.
Planner agents answer tool calls (`tools.py`) from a `observation.HouseholdObservation`.
"""
