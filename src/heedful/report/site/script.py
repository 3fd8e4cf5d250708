"""The site's script, `app.js` beside this module (vanilla JavaScript, no dependency): the summary tables, the
filters and the episode detail.

It builds every element with `document.createElement` and puts texts in with `textContent`: records hold
untrusted texts (instructions, model output), and none of them is ever parsed as HTML.
"""

from __future__ import annotations

from importlib import resources

APP_JS = resources.files(__package__).joinpath("app.js").read_text(encoding="utf-8")
