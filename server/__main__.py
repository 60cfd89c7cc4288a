"""``python -m server …`` is the ``deadmail`` command (for when pip's script folder is not on PATH)."""

from .run.cli import main

main(prog_name="deadmail")
