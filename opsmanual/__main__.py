"""`python -m opsmanual`: the manual's commands (opsmanual/cli/main.py)."""

from opsmanual.cli.main import run_module

run_module()
