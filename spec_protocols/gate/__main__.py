"""``python -m spec_protocols.gate``: the ``spec-protocols`` command, for an environment without its console script."""

from __future__ import annotations

import sys

from spec_protocols.gate._cli import main

sys.exit(main())
