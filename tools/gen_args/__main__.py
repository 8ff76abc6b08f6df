"""``python -m tools.gen_args``: the command line (tools/gen_args/cli.py)."""

import sys

from tools.gen_args.cli import main

sys.exit(main())
