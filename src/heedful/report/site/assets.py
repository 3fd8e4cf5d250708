"""The site's page and style, written with the script (`heedful.report.site.script`) next to `data.js`."""

from __future__ import annotations

from heedful.report.site.script import APP_JS

INDEX_HTML = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'self' file:; img-src 'self' file: data:">
<title>heedful view</title>
<link rel="stylesheet" href="style.css">
</head>
<body>
<header>
  <h1>heedful view</h1>
  <nav>
    <button type="button" id="tab-summary" class="tab active">Summary</button>
    <button type="button" id="tab-episodes" class="tab">Episodes</button>
  </nav>
  <span id="generated"></span>
</header>
<main>
  <section id="summary"></section>
  <section id="episodes" hidden>
    <div id="filters"></div>
    <div id="browser">
      <div id="list-pane"><p id="list-count"></p><table id="episode-list"><thead></thead><tbody></tbody></table></div>
      <div id="detail"><p class="hint">Click an episode to see what the agent saw and did.</p></div>
    </div>
  </section>
  <noscript>This page needs JavaScript to show the runs (it loads them from data.js).</noscript>
</main>
<script src="data.js"></script>
<script src="app.js"></script>
</body>
</html>
"""

STYLE_CSS = """
:root { --fg: #1d2330; --muted: #5d6678; --line: #d9dde5; --bg: #f6f7f9; --ok: #1f7a3a; --bad: #b3261e;
  --warn: #9a6700; --accent: #2f5bd3; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg);
  background: var(--bg); }
header { display: flex; align-items: center; gap: 24px; padding: 10px 20px; background: #fff;
  border-bottom: 1px solid var(--line); position: sticky; top: 0; z-index: 2; }
header h1 { font-size: 18px; margin: 0; }
#generated { color: var(--muted); margin-left: auto; font-size: 12px; }
.tab { border: 1px solid var(--line); background: #fff; padding: 5px 14px; border-radius: 6px; cursor: pointer;
  font: inherit; }
.tab.active { background: var(--accent); color: #fff; border-color: var(--accent); }
main { padding: 16px 20px; }
h2 { font-size: 17px; margin: 22px 0 8px; }
h3 { font-size: 15px; margin: 14px 0 6px; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; margin: 0 0 14px; }
.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 14px; margin: 6px 0 10px; }
.facts dt { color: var(--muted); }
.facts dd { margin: 0; overflow-wrap: anywhere; }
table { border-collapse: collapse; background: #fff; }
th, td { border-bottom: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #eef0f4; font-weight: 600; position: sticky; top: 0; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.scroll { max-height: 420px; overflow: auto; border: 1px solid var(--line); border-radius: 6px;
  display: inline-block; max-width: 100%; }
.note { color: var(--muted); font-size: 13px; margin: 4px 0; }
.warn { color: var(--warn); }
label.inline { margin-right: 14px; color: var(--muted); }
select, input[type=search] { font: inherit; padding: 3px 6px; border: 1px solid var(--line); border-radius: 5px;
  background: #fff; color: var(--fg); }
#filters { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; margin-bottom: 10px; }
#filters label { display: flex; gap: 6px; align-items: center; color: var(--muted); }
#browser { display: grid; grid-template-columns: minmax(380px, 44%) 1fr; gap: 16px; align-items: start; }
#list-pane { max-height: calc(100vh - 150px); overflow: auto; background: #fff; border: 1px solid var(--line);
  border-radius: 6px; }
#list-count { margin: 6px 10px; color: var(--muted); }
#episode-list { width: 100%; }
#episode-list tbody tr { cursor: pointer; }
#episode-list tbody tr:hover { background: #f0f4ff; }
#episode-list tbody tr.selected { background: #dde6ff; }
#episode-list td.id { font-family: ui-monospace, monospace; font-size: 12px; overflow-wrap: anywhere; }
#episode-list td.groups { color: var(--muted); font-size: 12px; }
#detail { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; min-height: 200px;
  overflow-wrap: anywhere; }
#detail h2 { margin-top: 0; font-family: ui-monospace, monospace; font-size: 15px; }
.badge { display: inline-block; padding: 0 7px; border-radius: 9px; font-size: 12px; margin-right: 6px;
  border: 1px solid currentColor; }
.good { color: var(--ok); }
.bad { color: var(--bad); }
.instruction { font-size: 16px; padding: 8px 12px; background: #f3f6ff; border-left: 4px solid var(--accent);
  margin: 6px 0 10px; white-space: pre-wrap; }
pre { background: #f5f6f8; border: 1px solid var(--line); border-radius: 5px; padding: 6px 8px; margin: 4px 0;
  white-space: pre-wrap; word-break: break-word; max-height: 320px; overflow: auto;
  font: 12px/1.4 ui-monospace, monospace; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
.media img, .media video { max-width: 100%; border: 1px solid var(--line); border-radius: 5px; }
details summary { cursor: pointer; color: var(--accent); margin: 6px 0; }
#detail th, #detail td { overflow-wrap: normal; word-break: normal; }
#detail th { white-space: nowrap; }
#detail table[data-table=stages] { width: 100%; }
h3, table, .card { scroll-margin-top: 64px; }
.chips { display: flex; flex-wrap: wrap; gap: 4px 6px; margin: 4px 0 8px; }
.chip { background: #f0f2f6; border-radius: 10px; padding: 1px 8px; font-size: 12px; }
.media img { max-height: 460px; }
figure.figure { margin: 0 0 14px; display: inline-block; max-width: 100%; }
figure.figure img { display: block; max-width: 100%; height: auto; }
p.note[data-figure] { margin: 0 0 12px; }
.qa { border-left: 3px solid var(--line); padding-left: 8px; margin: 6px 0; }
.error { color: var(--bad); white-space: pre-wrap; }
@media (max-width: 900px) { #browser { grid-template-columns: 1fr; } .pair { grid-template-columns: 1fr; } }
"""


FILES = {"index.html": INDEX_HTML, "style.css": STYLE_CSS, "app.js": APP_JS}
"""The site's static files by name."""
