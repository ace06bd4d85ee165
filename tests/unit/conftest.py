"""tests/unit/ starts no static checker: a test that does fails, saying it belongs in tests/checkers/."""

from tests._no_checkers import no_static_checker

__all__ = ["no_static_checker"]
