"""Where the files beside the package are: templates/, static/, alembic.ini, migrations/; and
the one data file inside it, the expert bot's tables, read here for the engine.

In a checkout (or an editable install) they sit beside `app/`; an installed wheel (the Docker
image) runs from the folder that holds them.
"""

from __future__ import annotations

from pathlib import Path


def _root() -> Path:
    beside_package = Path(__file__).resolve().parent.parent
    for candidate in (beside_package, Path.cwd()):
        if (candidate / "alembic.ini").exists() and (candidate / "templates").is_dir():
            return candidate
    return beside_package


ROOT = _root()
TEMPLATES_DIR = ROOT / "templates"
STATIC_DIR = ROOT / "static"
ALEMBIC_INI = ROOT / "alembic.ini"
HEADSUP_TABLES = Path(__file__).resolve().parent / "engine" / "tables" / "headsup.bin"


def headsup_tables() -> bytes | None:
    """The expert bot's heads-up tables (`bench/solver.py build` writes them); None when the
    file is missing. The engine's `headsup.use_tables` takes this reader."""
    return HEADSUP_TABLES.read_bytes() if HEADSUP_TABLES.exists() else None
