"""`python -m macros.triage`: the triage command (opsmanual/cli/triage.py)."""

from opsmanual.cli.triage import run

if __name__ == "__main__":
    run()
