"""The games the platform serves. The platform never imports a game: the composition root
(`companion/games/__init__.py`) hands them to `create_app`, which registers them here, in the order
the start page offers them."""
from __future__ import annotations

from .contract import Game, RuleError

GAMES: dict[str, Game] = {}


def register(game: Game) -> Game:
    GAMES[game.id] = game
    return game


def get_game(game_id: str) -> Game:
    try:
        return GAMES[game_id]
    except KeyError:
        raise RuleError("Unknown game {game_id!r}; choose one of: {games}.", game_id=game_id, games=', '.join(sorted(GAMES))) from None
