"""`python -m heedful` runs the command line."""

import sys

from heedful.cli.main import main

sys.exit(main())
