"""`python -m macros.diagnose`: the diagnosis command (opsmanual/cli/diagnose.py)."""

from opsmanual.cli.diagnose import run

if __name__ == "__main__":
    run()
