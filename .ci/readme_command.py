"""Print the Nth command of the README's first bash block (the set-up commands), so CI runs what it says."""

import re
import sys
from pathlib import Path

block = re.search(r"```bash\n(.*?)```", Path("README.md").read_text(encoding="utf-8"), re.DOTALL)
if block is None:
    sys.exit("README.md has no ```bash block with the set-up commands")
commands = [line for line in block.group(1).splitlines() if line.strip()]
index = int(sys.argv[1]) - 1
if not 0 <= index < len(commands):
    sys.exit(f"README.md's first bash block has {len(commands)} commands, not {index + 1}")
print(commands[index])
