"""`python -m macros.exposure`: the launch-command check (opsmanual/cli/exposure.py)."""

from opsmanual.cli.exposure import run

if __name__ == "__main__":
    run()
