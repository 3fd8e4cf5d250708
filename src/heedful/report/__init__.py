"""Reports of runs: terminal tables, JSON, CSV, Markdown and LaTeX tables, figures.

The names below are what the command line offers; they live here so that building its parser imports nothing else.
"""

REPORT_FORMATS = ("table", "json", "markdown", "latex", "csv")
"""What `heedful report --format` writes; the first is the default."""
FIGURE_FORMATS = ("pdf", "svg", "png")
"""The file extensions `heedful plot --out` writes (pdf and svg are vector)."""
