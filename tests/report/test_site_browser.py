"""`heedful view` in a real browser (headless Chromium through Playwright): the page opens from file:// without
an error, shows the API's numbers, its filters narrow the list to the counts the records give, an episode shows
its detail and media, and an instruction that is HTML stays text. Screenshots of each state go to tmp."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import pytest

from heedful.api import report
from heedful.records import Record
from heedful.report.site import build_site
from heedful.runner import load_run

CHROMIUM = Path("/usr/bin/chromium")
pytestmark = pytest.mark.slow

RUNS = ("dec_oracle", "dec_majority", "hh_oracle", "tt_oracle", "tt_video")
"""The site's runs, in order: their ids on the page are r0 .. r4."""
RUNS_OF = {"decisions": "r0", "household": "r2", "tabletop": "r3"}
"""The first run of each suite: its figure stands above that run's metric table."""
ABOVE = (
    "(img, table) => !!(img.closest('figure').compareDocumentPosition(document.querySelector(table))"
    " & Node.DOCUMENT_POSITION_FOLLOWING)"
)
"""Whether a figure stands above (before) a table in the page."""


@pytest.fixture(scope="module")
def site(site_runs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    build_site([site_runs[name] for name in RUNS], out, episodes="all", progress=False)
    return out


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    missing = (
        "the browser test needs playwright (the test extra)"
        if find_spec("playwright") is None
        else f"the browser test needs Chromium at {CHROMIUM} (apt-get install chromium; Playwright cannot download it)"
        if not CHROMIUM.is_file()
        else None
    )
    if missing is not None:
        if os.environ.get("CI"):  # CI installs both (.ci/run): a skip there would hide a missing install
            pytest.fail(missing)
        pytest.skip(missing)
    from playwright import sync_api

    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any, site: Path) -> Iterator[Any]:
    """The site's page; the test fails on any console error or uncaught exception in it."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    opened.on("pageerror", lambda error: errors.append(str(error)))
    opened.goto((site / "index.html").as_uri())
    yield opened
    context.close()
    assert errors == []


def shot(page: Any, tmp_path_factory: pytest.TempPathFactory, name: str) -> None:
    folder = tmp_path_factory.getbasetemp() / "site-screenshots"
    folder.mkdir(exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"))


def shown(page: Any) -> int:
    visible = page.locator("#episode-list tbody tr:not([hidden])").count()
    assert page.get_attribute("#list-count", "data-shown") == str(visible)
    return int(visible)


def records(site_runs: dict[str, Path], name: str) -> list[Record]:
    return list(load_run(site_runs[name])[1])


def test_the_summary_shows_the_report_rows_of_every_run(
    page: Any, site_runs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> None:
    shot(page, tmp_path_factory, "1-summary")
    cells = page.eval_on_selector_all(
        "table[data-table=metrics] tr[data-metric]",
        "rows => rows.map(r => [r.dataset.run, r.dataset.metric, r.dataset.group,"
        " r.querySelector('[data-field=value]').textContent])",
    )
    for i, name in enumerate(RUNS):
        rows, _ = report(site_runs[name])
        want = [
            [f"r{i}", row.metric, row.group, "-" if row.value is None else f"{100 * row.value:.1f}%"]
            for row in rows
            if row.group not in ("status", "usage")
        ]
        assert [cell for cell in cells if cell[0] == f"r{i}" and cell[2] != "usage"] == want, name
    assert page.locator("table[data-table=comparison]").count() == 2  # decisions A vs B, tabletop A vs B
    assert page.locator("table[data-table=side-by-side]").count() == 2
    groups = page.eval_on_selector_all("select[data-filter=metric-group]", "s => s.map(x => x.value)")
    assert groups and set(groups) == {"all"}  # each run's table opens on the answer
    headers = page.eval_on_selector_all("table[data-table=side-by-side] thead th.num", "h => h.map(x => x.textContent)")
    assert headers and all(len(h) < 60 and "://" not in h for h in headers)  # the agent and what differs
    page.locator("table[data-table=comparison]").first.scroll_into_view_if_needed()
    shot(page, tmp_path_factory, "2-comparison")


def test_each_suite_shows_its_figure_above_its_tables(page: Any, tmp_path_factory: pytest.TempPathFactory) -> None:
    suites = ("decisions", "household", "tabletop")
    if find_spec("matplotlib") is None:  # the plots extra is optional: the page says how to install it
        for suite in suites:
            assert 'pip install -e ".[plots]"' in (page.text_content(f"#summary p[data-figure={suite}]") or "")
        return
    page.wait_for_function("() => [...document.querySelectorAll('#summary figure img')].every(i => i.complete)")
    for suite in suites:
        img = f"#summary figure[data-figure={suite}] img"
        assert page.eval_on_selector(img, "img => img.naturalWidth") > 0, suite
        assert f"{suite} suite" in (page.get_attribute(img, "alt") or ""), suite
        table = f"table[data-table=metrics][data-run={RUNS_OF[suite]}]"
        assert page.eval_on_selector(img, ABOVE, table), suite
    alt = page.get_attribute("#summary figure[data-figure=decisions] img", "alt") or ""
    assert "dec_oracle (oracle" in alt and "dec_majority (majority)" in alt and "side by side" in alt
    shot(page, tmp_path_factory, "0-summary-figure")


def test_the_filters_narrow_the_episode_list(
    page: Any, site_runs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> None:
    page.click("#tab-episodes")
    page.select_option("#filter-run", "r1")  # decisions, majority: right and wrong answers
    majority = records(site_runs, "dec_majority")
    assert shown(page) == len(majority) == 40
    page.select_option("#filter-status", "ok")
    assert shown(page) == sum(1 for r in majority if r.status.value == "ok")
    page.select_option("#filter-correct", "wrong")
    wrong = [r for r in majority if r.correct is False]
    assert 0 < shown(page) == len(wrong) < 40
    category = wrong[0].keys["category"]
    page.select_option("#filter-key", "category")
    page.select_option("#filter-value", category)
    assert shown(page) == sum(1 for r in wrong if r.keys["category"] == category)
    shot(page, tmp_path_factory, "3-filtered")
    page.select_option("#filter-correct", "")
    page.select_option("#filter-value", "")
    word = str(majority[5].inputs["instruction"]).split()[2]
    page.fill("#filter-search", word)
    want = [r for r in majority if word.lower() in f"{r.episode_id}\n{r.inputs['instruction']}".lower()]
    assert shown(page) == len(want) >= 1
    page.fill("#filter-search", majority[7].episode_id)
    assert shown(page) == 1


def test_an_episode_shows_what_the_agent_saw_and_did(
    page: Any, site_runs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> None:
    page.click("#tab-episodes")
    page.select_option("#filter-run", "r1")
    record = records(site_runs, "dec_majority")[3]
    page.click(f"#episode-list tr[data-episode='{record.episode_id}']")
    assert page.get_attribute("#detail", "data-episode") == record.episode_id
    assert page.text_content("#detail h2") == record.episode_id
    assert page.text_content("#detail [data-field=instruction]") == record.inputs["instruction"]
    assert page.text_content("#detail [data-field=raw]") == record.raw_output
    shot(page, tmp_path_factory, "4-decisions-episode")


def test_a_household_episode_shows_its_replay(
    page: Any, site_runs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> None:
    page.click("#tab-episodes")
    page.select_option("#filter-run", "r2")
    record = records(site_runs, "hh_oracle")[1]
    page.click(f"#episode-list tr[data-episode='{record.episode_id}']")
    assert page.text_content("#detail h2") == record.episode_id
    page.wait_for_function("() => { const i = document.querySelector('#detail img'); return i && i.complete; }")
    assert page.eval_on_selector("#detail img", "img => img.naturalWidth") > 0
    assert "Go to Room" in (page.text_content("#detail") or "")  # the actions the suite read
    shot(page, tmp_path_factory, "5-household-episode")


def test_a_tabletop_episode_shows_its_video_recorded_or_made_from_the_records(
    page: Any, site: Path, site_runs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
) -> None:
    page.click("#tab-episodes")
    for run_id, run, name in (("r4", "tt_video", "6-tabletop-video"), ("r3", "tt_oracle", "7-tabletop-video-made")):
        page.select_option("#filter-run", run_id)
        record = records(site_runs, run)[0]
        page.click(f"#episode-list tr[data-episode='{record.episode_id}']")
        assert page.text_content("#detail h2") == record.episode_id
        src = page.get_attribute("#detail video", "src")
        assert src and (site / src).is_file() and (site / src).stat().st_size > 0
        page.wait_for_function("() => document.querySelector('#detail video').videoWidth === 224")  # it decodes
        assert page.locator("#detail table[data-table=stages] tbody tr").count() == len(record.prediction["stages"])
        assert page.locator("#detail [data-media-note]").count() == 0
        shot(page, tmp_path_factory, name)


def test_an_instruction_that_is_html_stays_text(
    browser: Any, site: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    hostile = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script><b>bold</b>'
    copy = tmp_path_factory.mktemp("hostile-site")
    for name in ("index.html", "app.js", "style.css"):
        shutil.copy(site / name, copy / name)
    text = (site / "data.js").read_text(encoding="utf-8")
    prefix = "window.HEEDFUL_SITE = "
    data = json.loads(text[len(prefix) :].rstrip().rstrip(";"))
    entry = data["episodes"]["r0"][0]
    entry.update(instruction=hostile, raw_output=hostile, id=hostile)
    data["runs"][0]["agent"] = hostile
    (copy / "data.js").write_text(prefix + json.dumps(data) + ";\n", encoding="utf-8")
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto((copy / "index.html").as_uri())
    page.click("#tab-episodes")
    page.locator("#episode-list tbody tr").first.click()
    assert page.text_content("#detail [data-field=instruction]") == hostile
    assert page.text_content("#detail [data-field=raw]") == hostile
    assert page.evaluate("() => window.pwned") is None
    assert page.locator("#detail img, #detail b, #summary b").count() == 0
    page.screenshot(path=str(tmp_path_factory.getbasetemp() / "site-screenshots" / "8-hostile-text.png"))
    page.close()
    assert errors == []


def test_an_arms_job_shows_its_language_dependence_table(
    browser: Any, tmp_path_factory: pytest.TempPathFactory
) -> None:
    from heedful.arms_job import arms_table, job_runs
    from heedful.cli.main import main

    job = tmp_path_factory.mktemp("arms") / "job"
    assert main(["run", "decisions", "--agent", "lexical", "--limit", "20", "--arms", "given,empty,other",
                 "--out", str(job), "--no-progress"]) == 0  # fmt: skip
    out = tmp_path_factory.mktemp("arms-site")
    build_site([job], out, episodes="none", progress=False)
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto((out / "index.html").as_uri())
    cells = page.eval_on_selector_all(
        "table[data-table=language] tr[data-arm]",
        "rows => rows.map(r => [r.dataset.group, r.dataset.arm, r.querySelector('[data-field=score]').textContent,"
        " r.querySelector('[data-field=followed-given]').textContent])",
    )
    _, _, rows = arms_table(job_runs(job))
    want = [
        [r.group, r.arm, f"{100 * r.score:.1f}%", "" if r.followed_given is None else f"{100 * r.followed_given:.1f}%"]
        for r in rows
    ]
    assert cells == want and any(c[1] == "other" and c[3] for c in cells)
    assert page.locator("table[data-table=metrics]").count() == 3  # the three arms' runs, each with its card
    page.screenshot(path=str(tmp_path_factory.getbasetemp() / "site-screenshots" / "9-language.png"))
    page.close()
    assert errors == []
