"""``python -m reglas …``: the master's calculator (see ``reglas.cli``)."""

from reglas.cli import main

raise SystemExit(main())
