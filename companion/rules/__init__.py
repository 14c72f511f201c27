"""Registry of the games the companion knows."""
from __future__ import annotations

from .base import Game, MalformedEntry, RuleError

GAMES: dict[str, Game] = {}


def register(game: Game) -> Game:
    GAMES[game.id] = game
    return game


def get_game(game_id: str) -> Game:
    try:
        return GAMES[game_id]
    except KeyError:
        raise RuleError(f"Unknown game {game_id!r}; choose one of: {', '.join(sorted(GAMES))}.") from None


# Each engine registers itself on import; this order is the order the start page offers them.
from . import dicez  # noqa: E402,F401,I001
from . import dice_and_slice  # noqa: E402,F401
from . import pizza_theory  # noqa: E402,F401

__all__ = ["Game", "MalformedEntry", "RuleError", "GAMES", "register", "get_game"]
