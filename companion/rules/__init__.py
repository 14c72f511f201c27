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


def _load() -> None:
    # Each engine module registers itself on import; a missing one is simply not offered.
    import importlib

    for name in ("dicez", "dice_and_slice", "pizza_theory"):
        try:
            importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise


_load()

__all__ = ["Game", "MalformedEntry", "RuleError", "GAMES", "register", "get_game"]
