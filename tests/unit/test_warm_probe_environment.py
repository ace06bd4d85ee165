"""Which module-level code keeps the watch mode's warm runtime probe from a round (gate._checkers._runtime._warm)."""

from __future__ import annotations

from pathlib import Path

import pytest

from spec_protocols.gate._checkers._runtime._warm import _shadowed, environment_changes

CHANGES = [
    "import os\nos.environ['SGLANG_X'] = '1'\n",
    "import os\nos.environ.setdefault('CUDA_VISIBLE_DEVICES', '0')\n",
    "import os\nos.putenv('SGLANG_X', '1')\n",
    "from os import environ\nenviron.update(SGLANG_X='1')\n",
    "import sys\nsys.path.insert(0, '/elsewhere')\n",
    "import sys\nsys.path = ['/elsewhere']\n",
    "import os\nif True:\n    try:\n        os.environ['X'] = '1'\n    except KeyError:\n        pass\n",
    "import os\ndel os.environ['SGLANG_X']\n",
]

KEEPS = [
    "import os\nVALUE = os.environ.get('SGLANG_X')\n",
    "import os\ndef configure():\n    os.environ['SGLANG_X'] = '1'\n",
    "import sys\nclass A:\n    def f(self):\n        sys.path.append('x')\n",
    "import sys\nFIRST = sys.path[0]\n",
]


@pytest.mark.parametrize("source", CHANGES)
def test_module_level_environment_changes_are_found(tmp_path: Path, source: str) -> None:
    file = tmp_path / "plugin.py"
    file.write_text(source, encoding="utf-8")
    assert environment_changes([file]) == file


@pytest.mark.parametrize("source", KEEPS)
def test_reads_and_code_in_functions_are_not_changes(tmp_path: Path, source: str) -> None:
    file = tmp_path / "plugin.py"
    file.write_text(source, encoding="utf-8")
    assert environment_changes([file]) is None


def test_an_unparsable_file_counts_as_a_change(tmp_path: Path) -> None:
    file = tmp_path / "plugin.py"
    file.write_text("def (:\n", encoding="utf-8")
    assert environment_changes([file]) == file


def test_a_root_entry_named_as_a_loaded_module_shadows_it_unless_it_is_that_module(tmp_path: Path) -> None:
    (tmp_path / "numpy.py").write_text("", encoding="utf-8")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "__init__.py").write_text("", encoding="utf-8")
    assert _shadowed([tmp_path], {"numpy": "/site/numpy/__init__.py"}) == str(tmp_path / "numpy.py")
    assert _shadowed([tmp_path], {"mine": str(tmp_path / "mine" / "__init__.py")}) is None
    assert _shadowed([tmp_path], {"sys": ""}) is None
