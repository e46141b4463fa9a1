"""``python -m jitlab``: the same as the ``jitlab`` command."""

from jitlab.cli import main

raise SystemExit(main())
