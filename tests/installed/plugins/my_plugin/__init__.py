"""The plugin the docs call ``my_plugin``: the installed tier runs the docs' blocks on it (tests/_doc_blocks.py)."""
