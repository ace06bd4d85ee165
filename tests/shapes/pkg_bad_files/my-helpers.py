"""A script kept next to the package's modules; its dashed name cannot be imported as a module."""

from __future__ import annotations

import sys


def main() -> int:
    print("acceptance-rate helper: nothing to do", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
