"""`python -m playground ...` runs the CLI."""

from .cli import main

raise SystemExit(main())
