"""Allow `python -m nextword`."""

from nextword.cli import entry

entry()
