"""`heedful view`: the site's data equals the API's report and comparison, media are made on demand, and the
page is static (no fetch, no CDN) and never parses a record's text as HTML."""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from heedful.api import compare, plot, report
from heedful.cli.main import main
from heedful.cli.view_command import add_view, cmd_view
from heedful.errors import ConfigError
from heedful.report.site import build_site
from heedful.report.site.figures import NO_MATPLOTLIB
from heedful.report.site.media import plan, wanted
from heedful.runner import load_run
from heedful.runner.manifest import write_manifest
from heedful.runner.store import RunStore


def site_data(out: Path) -> dict[str, Any]:
    text = (out / "data.js").read_text(encoding="utf-8")
    prefix = "window.HEEDFUL_SITE = "
    assert text.startswith(prefix) and text.rstrip().endswith(";")
    data: dict[str, Any] = json.loads(text[len(prefix) :].rstrip().rstrip(";"))
    return data


def test_two_decisions_runs_give_report_rows_and_the_paired_comparison(
    site_runs: dict[str, Path], tmp_path: Path
) -> None:
    runs = [site_runs["dec_oracle"], site_runs["dec_majority"]]
    built = build_site(runs, tmp_path / "site", episodes="failed", progress=False)
    assert built["runs"] == 2 and built["episodes"] == 80 and built["media"] == 0
    names = {p.name for p in (tmp_path / "site").iterdir()}
    assert names - {"media"} == {"index.html", "style.css", "app.js", "data.js"}  # media/: the figure, if drawn
    data = site_data(tmp_path / "site")
    for summary, run in zip(data["runs"], runs, strict=True):
        rows, title = report(run)
        assert summary["rows"] == json.loads(json.dumps([row.as_dict() for row in rows]))
        assert summary["title"] == title and summary["suite"] == "decisions"
        _, records = load_run(run)
        assert [e["id"] for e in data["episodes"][summary["id"]]] == [r.episode_id for r in records]
        assert summary["status_counts"] == {"ok": 40}
        assert summary["correct"] == sum(1 for r in records if r.correct)
    (comparison,) = data["comparisons"]
    assert (comparison["a"], comparison["b"], comparison["error"]) == ("r0", "r1", None)
    assert comparison["rows"] == json.loads(json.dumps([row.as_dict() for row in compare(*runs)]))
    entry = data["episodes"]["r1"][0]
    _, records = load_run(runs[1])
    assert entry["instruction"] == records[0].inputs["instruction"] and entry["observation"]
    assert entry["main"] == {"name": "correct", "value": float(bool(records[0].correct))}


def test_the_page_is_static_and_never_parses_text_as_html(site_runs: dict[str, Path], tmp_path: Path) -> None:
    build_site([site_runs["dec_oracle"]], tmp_path, episodes="none", progress=False)
    page = "\n".join((tmp_path / name).read_text(encoding="utf-8") for name in ("index.html", "app.js", "style.css"))
    for forbidden in (
        "innerHTML",
        "outerHTML",
        "insertAdjacentHTML",
        "document.write",
        "fetch(",
        "http://",
        "https://",
    ):
        assert forbidden not in page, forbidden
    html = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert html.index('src="data.js"') < html.index('src="app.js"')


def test_each_suite_gets_the_figure_heedful_plot_draws_of_its_runs(site_runs: dict[str, Path], tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    decisions = [site_runs["dec_oracle"], site_runs["dec_majority"]]
    built = build_site([*decisions, site_runs["hh_oracle"]], tmp_path / "site", episodes="none", progress=False)
    assert built["figures"] == 2
    figures = site_data(tmp_path / "site")["figures"]
    assert figures == [
        {"suite": "decisions", "runs": ["r0", "r1"], "path": "media/figure-decisions.svg", "note": None},
        {"suite": "household", "runs": ["r2"], "path": "media/figure-household.svg", "note": None},
    ]
    drawn = tmp_path / "site" / figures[0]["path"]
    assert drawn.read_bytes() == plot(decisions, tmp_path / "plot.svg").read_bytes()  # the same code, byte for byte
    text = " ".join("".join(e.itertext()) for e in ET.parse(drawn).getroot().iter() if e.tag.endswith("}text"))
    assert "decisions suite" in text and "oracle" in text and "majority" in text


def test_without_matplotlib_the_site_stands_and_says_how_to_install_it(
    site_runs: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # `import matplotlib` raises ImportError
    built = build_site([site_runs["dec_oracle"], site_runs["hh_oracle"]], tmp_path, episodes="none", progress=False)
    assert built["figures"] == 0 and built["runs"] == 2 and not (tmp_path / "media").exists()
    figures = site_data(tmp_path)["figures"]
    assert [(f["suite"], f["path"], f["note"]) for f in figures] == [
        ("decisions", None, NO_MATPLOTLIB),
        ("household", None, NO_MATPLOTLIB),
    ]
    assert 'pip install -e ".[plots]"' in NO_MATPLOTLIB and "\n" not in NO_MATPLOTLIB


def test_household_replays_are_made_for_the_chosen_episodes(site_runs: dict[str, Path], tmp_path: Path) -> None:
    built = build_site([site_runs["hh_oracle"]], tmp_path, episodes="1", progress=False)
    assert built["media"] == 1
    entries = site_data(tmp_path)["episodes"]["r0"]
    assert entries[0]["media"] == {"kind": "image", "path": f"media/r0/{entries[0]['id']}.gif"}
    assert (tmp_path / entries[0]["media"]["path"]).read_bytes()[:6] in (b"GIF87a", b"GIF89a")
    assert all(e["media"] is None for e in entries[1:])
    assert entries[0]["details"][0][0] == "actions" and entries[0]["scores"]["success"] == 1.0


def test_tabletop_videos_are_copied_or_made_from_the_records_and_a_trial_that_does_not_reproduce_gets_none(
    site_runs: dict[str, Path], tmp_path: Path
) -> None:
    edited = tmp_path / "edited"  # tt_oracle with its first record's score changed: that trial no longer reproduces
    shutil.copytree(site_runs["tt_oracle"], edited)
    manifest, records = load_run(edited)
    with RunStore(edited) as store:
        store.put(records[0].model_copy(update={"scores": {**records[0].scores, "intent": 0.5}}), manifest.run_identity)
        # resealed as a forger would (readers refuse a casual edit): the replay check is what is tested here
        write_manifest(edited, manifest.model_copy(update={"records_digest": store.digest()}))
    runs = [site_runs["tt_oracle"], site_runs["tt_video"], edited]
    built = build_site(runs, tmp_path / "site", episodes="all", progress=False)
    site = tmp_path / "site"
    data = site_data(site)
    assert built["media"] == 5 and [run["media_note"] for run in data["runs"]] == [None, None, None]
    made, copied, checked = (data["episodes"][f"r{i}"] for i in range(3))
    for entry in copied:
        assert entry["media"]["kind"] == "video"
        assert (site / entry["media"]["path"]).read_bytes() == Path(entry["prediction"]["video"]).read_bytes()
        assert entry["stages"] and all(stage["detail"] for stage in entry["stages"])
    for entry, recorded in zip(made, copied, strict=True):  # the same trials, made without --video: the same MP4
        assert entry["id"] == recorded["id"] and entry["media"]["kind"] == "video"
        assert (site / entry["media"]["path"]).read_bytes() == (site / recorded["media"]["path"]).read_bytes()
    assert checked[0]["media"]["kind"] == "note" and "did not reproduce this trial" in checked[0]["media"]["text"]
    assert "scores.intent: stored 0.5" in checked[0]["media"]["text"]
    assert checked[1]["media"]["kind"] == "video"
    assert data["comparisons"][0]["error"] is None and data["comparisons"][0]["rows"]


def test_heedful_replay_takes_the_path_of_the_runs_suite(
    site_runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, records = load_run(site_runs["hh_oracle"])
    assert main(["replay", str(site_runs["hh_oracle"]), records[0].episode_id, "--out", str(tmp_path / "h.png")]) == 0
    assert "wrote" in capsys.readouterr().out and (tmp_path / "h.png").read_bytes()[:4] == b"\x89PNG"
    _, records = load_run(site_runs["tt_oracle"])
    assert main(["replay", str(site_runs["tt_oracle"]), records[0].episode_id, "--out", str(tmp_path / "t.png")]) == 0
    assert "its skill calls replayed" in capsys.readouterr().out and (tmp_path / "t.png").is_file()
    assert main(["replay", str(site_runs["dec_oracle"]), "x", "--out", str(tmp_path / "d.gif")]) == 2
    assert "replays exist for household and tabletop runs" in capsys.readouterr().err


def test_episodes_chooses_failed_all_the_first_n_or_none() -> None:
    entries = [{"id": str(i), "correct": c} for i, c in enumerate([True, False, None, True])]
    assert [e["id"] for e in wanted(entries, "failed")] == ["1", "2"]
    assert len(wanted(entries, "all")) == 4 and wanted(entries, "none") == []
    assert [e["id"] for e in wanted(entries, "3")] == ["0", "1", "2"]


def test_media_stop_at_max_media_per_run_and_the_page_says_how_many_were_left(
    site_runs: dict[str, Path], tmp_path: Path
) -> None:
    entries = [{"id": str(i), "correct": False} for i in range(5)]
    chosen, note = plan("tabletop", entries, "failed", 2)
    assert [e["id"] for e in chosen] == ["0", "1"] and note is not None
    assert "first 2 of the 5 episodes" in note and "--max-media" in note
    assert plan("tabletop", entries, "failed", 5) == (entries, None)
    built = build_site([site_runs["hh_oracle"]], tmp_path / "site", episodes="all", max_media=1, progress=False)
    assert built["media"] == 1
    data = (tmp_path / "site" / "data.js").read_text()
    assert "raise --max-media to make more" in data
    with pytest.raises(ConfigError, match="--max-media must be at least 1"):
        build_site([site_runs["hh_oracle"]], tmp_path / "site", max_media=0, progress=False)


def test_bad_arguments_say_what_is_expected(site_runs: dict[str, Path], tmp_path: Path) -> None:
    for episodes in ("some", "0", "-1"):
        with pytest.raises(ConfigError, match="failed, all, none or a number N"):
            build_site([site_runs["dec_oracle"]], tmp_path, episodes=episodes, progress=False)
    with pytest.raises(ConfigError, match="at least one run"):
        build_site([], tmp_path, progress=False)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="heedful")
    add_view(parser.add_subparsers(dest="command"), argparse.HelpFormatter)
    return parser


def test_cmd_view_builds_the_site_and_its_help_explains(
    site_runs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    parser = _parser()
    out = tmp_path / "site"
    args = parser.parse_args(["view", str(site_runs["dec_oracle"]), "--out", str(out), "--episodes", "none"])
    assert args.handler is cmd_view and args.episodes == "none" and not args.no_progress
    args = parser.parse_args(["view", str(site_runs["dec_oracle"]), "--out", str(out), "--no-progress"])
    assert args.handler(args) == 0
    assert f"wrote {out / 'index.html'}: 1 run(s), 40 episodes, 0 media" in capsys.readouterr().out
    assert (out / "data.js").is_file()
    with pytest.raises(SystemExit):
        parser.parse_args(["view", "--help"])
    text = capsys.readouterr().out
    for flag in ("--out", "--episodes", "--no-progress", "file://", "--video", "side by side"):
        assert flag in " ".join(text.split()), flag
