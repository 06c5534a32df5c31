"""Where the files beside the package are: templates/, static/, alembic.ini, migrations/.

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
