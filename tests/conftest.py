"""Every test may meet the expert bot: its tables come from the shipped file, read only when a
test first needs them (the engine reads no file; the server's start-up hands it the same
reader)."""

from __future__ import annotations

from app.engine.headsup import use_tables
from app.paths import headsup_tables

use_tables(headsup_tables)
