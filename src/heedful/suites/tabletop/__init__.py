"""The tabletop suite: RoboFollow's protocol on the MuJoCo tabletop simulator.

Where things are:

- `model.py`: layouts, symbolic task specs (referring expressions, routes, conditions), tasks, trials.
- `scene1.py` .. `scene4.py`: the four scene families (layouts, training tasks, L1 layouts, held-out
  phrasings); `registry.py` builds the 75 training labels and the 554 evaluation tasks from them.
- `grounding.py` (specs -> objects, feasibility), `language.py` (instructions and paraphrases).
- `expert.py` (skill programs), `skillcalls.py` (the planner's call format), `observation.py` (its prompt).
- `perturb.py` (trial seeds, 1-2 cm perturbations), `runtime.py` (a trial in the simulator),
  `rollout.py` (agents acting for a fixed horizon), `stages.py` / `route.py` / `scoring.py` (stage-wise
  Intent / Execution and Completion from the recorded trajectory).
- `demos.py` / `demo_file.py` (HDF5 demonstrations), `dataset.py` (dataset files), `suite.py` (the Suite).

Importing this package imports nothing heavy; MuJoCo loads when a trial runs.
"""
