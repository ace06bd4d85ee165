"""``python -m spec_protocols.gate._cli``: the ``spec-protocols`` command (as ``python -m spec_protocols.gate``)."""

from __future__ import annotations

import sys

from spec_protocols.gate._cli import main

sys.exit(main())
