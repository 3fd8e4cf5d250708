"""The visual condition: the visual subset with images instead of the object list, baselines, reports, errors."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from heedful.api import compare, evaluate, report, report_text
from heedful.cli import main
from heedful.errors import ConfigError, DatasetError
from heedful.runner import load_run
from heedful.suites.decisions.observation import build_observation
from heedful.suites.decisions.suite import SUITE

pytestmark = pytest.mark.render

CONFIG = ["object_anchors=3", "action_anchors=3", "atomic_families=12", "multi_families=1", "visual_families=6"]


def _generate(out: Path, *extra: str) -> Path:
    sets = [item for c in CONFIG for item in ("--set", c)]
    assert main(["generate", "decisions", "--seed", "9", "--out", str(out), "--no-progress", *sets, *extra]) == 0
    return out


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _generate(tmp_path_factory.mktemp("visual") / "data", "--images")


def _accuracy(run: Path) -> float | None:
    rows, _ = report(run, resamples=50)
    return next(r.value for r in rows if r.metric == "accuracy" and r.group == "all")


def test_oracle_solves_every_visual_episode_from_the_cli(dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "oracle"
    assert main(["run", "decisions", "--dataset", str(dataset), "--agent", "oracle", "--condition", "visual",
                 "--out", str(out), "--no-progress"]) == 0  # fmt: skip
    manifest, records = load_run(out)
    visual_ids = {ep.episode_id for ep in SUITE.load_dataset(dataset) if ep.visual}
    assert {r.episode_id for r in records} == visual_ids and len(visual_ids) == 4 * 6
    assert manifest.spec.options["condition"] == "visual"
    assert _accuracy(out) == 1.0
    assert "condition visual (visual subset)" in report_text(out, resamples=50).splitlines()[0]


def test_structured_and_visual_runs_of_the_visual_subset_pair_up(dataset: Path, tmp_path: Path) -> None:
    for name, options in (("structured", {"subset": "visual"}), ("visual", {"condition": "visual"})):
        for agent in ("random-valid", "majority"):
            evaluate(suite="decisions", agent=agent, out=tmp_path / f"{agent}-{name}", dataset=dataset,
                     options=options, progress=False)  # fmt: skip
    _, structured = load_run(tmp_path / "random-valid-structured")
    _, visual = load_run(tmp_path / "random-valid-visual")
    assert [r.prediction for r in structured] == [r.prediction for r in visual]  # both seeded per episode
    rows = compare(tmp_path / "majority-structured", tmp_path / "majority-visual", resamples=50)
    accuracy = next(r for r in rows if r.metric == "accuracy" and r.group == "all")
    assert accuracy.n == 24 and accuracy.diff == 0.0
    assert main(["compare", str(tmp_path / "majority-structured"), str(tmp_path / "majority-visual"),
                 "--resamples", "50"]) == 0  # fmt: skip


def test_a_process_pool_reads_the_same_images(dataset: Path, tmp_path: Path) -> None:
    for name, workers in (("serial", 1), ("pool", 2)):
        evaluate(suite="decisions", agent="oracle", out=tmp_path / name, dataset=dataset,
                 options={"condition": "visual"}, workers=workers, progress=False)  # fmt: skip
    _, serial = load_run(tmp_path / "serial")
    _, pool = load_run(tmp_path / "pool")
    assert [r.deterministic_dict() for r in serial] == [r.deterministic_dict() for r in pool]
    assert all(r.correct for r in pool)


def test_compare_names_both_conditions(dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name, flags in (("s", ["--subset", "visual"]), ("v", ["--condition", "visual"])):
        assert main(["run", "decisions", "--dataset", str(dataset), "--agent", "oracle", "--out",
                     str(tmp_path / name), "--no-progress", *flags]) == 0  # fmt: skip
    capsys.readouterr()
    assert main(["compare", str(tmp_path / "s"), str(tmp_path / "v"), "--resamples", "50"]) == 0
    head = capsys.readouterr().out.splitlines()[:2]
    assert "condition structured (visual subset)" in head[0] and "condition visual (visual subset)" in head[1]


def test_the_visual_observation_carries_the_image_instead_of_positions(dataset: Path) -> None:
    episode = next(ep for ep in SUITE.load_dataset(dataset) if ep.visual and ep.anchor_kind == "object")
    png = (dataset / str(episode.image)).read_bytes()
    visual = build_observation(episode, run_seed=1, mask=False, image_png=png)
    structured = build_observation(episode, run_seed=1, mask=False)
    assert visual.image_png == png and structured.image_png is None
    assert "(x=" in structured.state_text and "(x=" not in visual.state_text
    assert all(f"{c.id}: {c.text}" in visual.state_text for c in episode.candidates)
    assert visual.state == {} and visual.candidates == structured.candidates


def test_visual_runs_refuse_what_cannot_work(dataset: Path, tmp_path: Path) -> None:
    def run(**kwargs: object) -> None:
        evaluate(suite="decisions", out=tmp_path / "run", progress=False, **kwargs)  # type: ignore[arg-type]

    with pytest.raises(ConfigError, match="--images --out DIR"):
        run(agent="oracle", options={"condition": "visual"})  # no dataset on disk
    with pytest.raises(ConfigError, match="drop subset=all"):
        run(agent="oracle", dataset=dataset, options={"condition": "visual", "subset": "all"})
    with pytest.raises(ConfigError, match="unknown condition"):
        run(agent="oracle", dataset=dataset, options={"condition": "rgb"})
    with pytest.raises(ConfigError, match="reads text only"):
        run(agent="llm", dataset=dataset, options={"condition": "visual"})  # the embedded SmolLM2
    plain = _generate(tmp_path / "plain")
    with pytest.raises(DatasetError, match="have no image"):
        run(agent="oracle", dataset=plain, options={"condition": "visual"})
    changed = tmp_path / "changed"
    shutil.copytree(dataset, changed)
    next((changed / "images").iterdir()).write_bytes(b"not the rendered image")
    with pytest.raises(DatasetError, match="does not match"):
        run(agent="oracle", dataset=changed, options={"condition": "visual"})
    assert not (tmp_path / "run").exists()
