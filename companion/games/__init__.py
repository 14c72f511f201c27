"""The composition root: every game the companion serves, in the order the start page offers them.

Adding a game is one folder under `companion/games/` and one line in GAME_FOLDERS.
"""
from importlib import import_module

from companion.platform.core.registry import register

GAME_FOLDERS = (
    "dicez",
    "dice_and_slice",
    "pizza_theory",
    "score_pad",
    "score_sheet",
)

for _folder in GAME_FOLDERS:
    register(import_module(f"{__name__}.{_folder}").GAME)
