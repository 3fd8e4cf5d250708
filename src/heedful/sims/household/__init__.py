"""A 2-D metric house simulator for the Situated Instruction Following protocol.

- `house.generate_house`: seeded floor plans (9-14 rooms, doors, functions, wall colours, furniture, objects);
- `grid.grid_for`: the occupancy grid (10 cm cells by default) with clearance, cached per process;
- `sim.HouseSim`: agent pose and the low-level actions (forward 0.17 m, turn 10 deg, grab, put, give);
- `vision`: the 79 deg field of view with a 5 m range and wall occlusion;
- `semantic_map.SemanticMap`: what the agent has seen, refreshed on observation and on grab / put;
- `human.plan_walk`: the human walking 0.08 m per step along a shortest path;
- `fields` / `navigate`: fast-marching distance fields and the geodesic controller;
- `explore.explore`: the frontier explorer of the exploration phase;
- `render`: top-down PNGs and replay frames.

Nothing here imports a suite.
"""
