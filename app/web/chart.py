"""A small line chart of a rating over games, drawn on the server as SVG coordinates: the
player's page needs no script or charting framework to show it."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

WIDTH, HEIGHT = 600, 200
PAD_LEFT, PAD_RIGHT, PAD_Y = 56, 8, 14
GRID_LINES = 4


@dataclass(frozen=True, slots=True)
class Chart:
    """What templates/player.html draws: the line, its last point, and the grid's values."""

    width: int
    height: int
    points: str  # an SVG polyline's `points`
    last: tuple[float, float]
    grid: list[tuple[float, str]]  # (y, label)


def rating_chart(values: Sequence[float]) -> Chart | None:
    """The chart of `values` in game order; None before two values make a line."""
    if len(values) < 2:
        return None
    low, high = _nice_range(min(values), max(values))
    inner_w = WIDTH - PAD_LEFT - PAD_RIGHT
    inner_h = HEIGHT - 2 * PAD_Y

    def y(value: float) -> float:
        return round(PAD_Y + inner_h * (high - value) / (high - low), 1)

    coords = [
        (round(PAD_LEFT + inner_w * i / (len(values) - 1), 1), y(value))
        for i, value in enumerate(values)
    ]
    step = (high - low) / GRID_LINES
    grid = [(y(low + step * i), f"{low + step * i:.0f}") for i in range(GRID_LINES + 1)]
    return Chart(WIDTH, HEIGHT, " ".join(f"{x},{y}" for x, y in coords), coords[-1], grid)


def _nice_range(low: float, high: float) -> tuple[float, float]:
    """`low`..`high` widened to multiples of a step that makes whole-number grid labels."""
    step = max(1, math.ceil((high - low) / GRID_LINES))
    while True:
        bottom = math.floor(low / step) * step
        if bottom + step * GRID_LINES >= high:
            return bottom, bottom + step * GRID_LINES
        step += 1
