"""The `nextword` subcommands, one module each (listed in nextword/cli.py)."""
