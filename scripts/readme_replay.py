"""Run every command of the README's bash blocks and of the `docs/` pages it links (in the order it links them),
in a scratch directory, and time each one.

    python scripts/readme_replay.py --work /tmp/replay [--timeout 600] [--json times.json]

Run it from a clone whose environment has the test install (the README's second set-up command). The set-up
block itself is not replayed (CI runs it: `.ci/run`). Commands that need what only you have (a placeholder
such as NAME, `[--cameras]`, your own server or package) are listed as skipped; a line ending in `&` is a
server started in the background for the rest of its block. The README's `mypolicy.py` is written into the
scratch directory first. Each command gets `--timeout` seconds: one still running then is stopped and reported
as such, with what it had done by then left in place.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLACEHOLDERS = ("[", "NAME", "gpu-box", "my_pkg", "127.0.0.1:8080")
"""Marks of a command that needs the reader's own model, server, package or a choice of flags."""


def documentation() -> str:
    """The README, then each `docs/` page it links, in the order of its links (each page once)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = dict.fromkeys(re.findall(r"\]\((docs/[\w.-]+\.md)\)", readme))
    return "\n".join([readme, *((ROOT / page).read_text(encoding="utf-8") for page in linked)])


def blocks(readme: str) -> list[list[str]]:
    """The commands of every bash block after the first (the set-up block), comments removed."""
    found = re.findall(r"```bash\n(.*?)```", readme, re.DOTALL)[1:]
    return [[_strip_comment(line) for line in block.splitlines() if line.strip()] for block in found]


def _strip_comment(line: str) -> str:
    return re.split(r"\s+#\s", line, maxsplit=1)[0].strip()


def _wait_for_port(command: str, seconds: float = 60.0) -> None:
    port = re.search(r"--port (\d+)", command)
    if port is None:
        time.sleep(2.0)
        return
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", int(port.group(1)))) == 0:
                return
        time.sleep(0.2)


def replay(work: Path, timeout: float) -> list[dict[str, object]]:
    readme = documentation()
    policy = re.search(r"```python\n# mypolicy.py\n(.*?)```", readme, re.DOTALL)
    work.mkdir(parents=True, exist_ok=True)
    if policy:
        (work / "mypolicy.py").write_text(policy.group(1), encoding="utf-8")
    results: list[dict[str, object]] = []
    for block in blocks(readme):
        background: list[subprocess.Popen[bytes]] = []
        for command in block:
            if any(mark in command for mark in PLACEHOLDERS):
                results.append({"command": command, "result": "skipped: needs your own setup"})
                continue
            if command.endswith("&"):
                line = command.rstrip("&").strip()
                background.append(subprocess.Popen(shlex.split(line), cwd=work, stdout=subprocess.DEVNULL))
                _wait_for_port(line)
                results.append({"command": command, "result": "started in the background"})
                continue
            print(f"+ {command}", file=sys.stderr, flush=True)
            start = time.monotonic()
            try:
                done = subprocess.run(command, shell=True, cwd=work, capture_output=True, timeout=timeout)
                result = f"exit {done.returncode}"
                if done.returncode:
                    result += ": " + done.stderr.decode(errors="replace").strip().splitlines()[-1][:200]
            except subprocess.TimeoutExpired:
                result = f"stopped at the {timeout:.0f} s cap"
            results.append({"command": command, "result": result, "wall_s": round(time.monotonic() - start, 1)})
        for process in background:
            process.terminate()
            process.wait(timeout=30)
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, required=True, help="scratch directory the commands run in")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds each command may take")
    parser.add_argument("--json", type=Path, help="also write the results as JSON")
    args = parser.parse_args(argv)
    results = replay(args.work, args.timeout)
    for r in results:
        wall = f"{r['wall_s']:>8.1f} s" if "wall_s" in r else " " * 10
        print(f"{wall}  {r['result']:<40}  {r['command']}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    return 0 if all(str(r["result"]).startswith(("exit 0", "skipped", "started")) for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
