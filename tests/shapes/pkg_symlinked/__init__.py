"""Symlinked subpackage: the package's ``linked`` subfolder is a symbolic link to a folder elsewhere.

Monorepos share algorithm code between plugins by symlinking a folder into
each package. The package's only worker lives behind the link
(``pkg_symlinked/linked -> ../_pkg_symlink_source``); a scan that does not
follow directory links finds no worker at all.
"""

from __future__ import annotations
