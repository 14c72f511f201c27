"""The composition root: every game the companion serves, one line each, in the order the start page
offers them. `companion.create_app` hands them to the platform; importing this module loads no game.

Adding a game is one folder under `companion/games/` and one line in FOLDERS (docs/adding-a-game.md).
"""
from __future__ import annotations

from importlib import import_module

FOLDERS = (
    "dicez",
    "dice_and_slice",
    "pizza_theory",
    "score_pad",
    "score_sheet",
)


def every_game() -> dict:
    """Each game's GAME by its id, imported from its folder, in the start page's order."""
    games = (import_module(f"{__name__}.{folder}").GAME for folder in FOLDERS)
    return {game.id: game for game in games}
