"""Allow `python -m nextword`."""

from nextword.cli import main

raise SystemExit(main())
