"""The session's safety net: a heedful process a test leaves running is killed at the end of the session."""

from __future__ import annotations

import subprocess
import sys

import conftest


def test_a_heedful_process_left_running_is_recorded_and_killed() -> None:
    code = "import time; time.sleep(600)  # heedful stand-in"
    process = subprocess.Popen([sys.executable, "-c", code])
    assert process in conftest.STARTED
    assert conftest.kill_leftovers([process]) == [process.pid] and process.poll() is not None
