"""A player's record across games: every finished game where the same name (case and spacing aside)
sat, from the players index and the results kept with each game. Knows no game: the figures beyond
played, won and score are each game's own `Game.record`, averaged label by label."""
from __future__ import annotations

from dataclasses import dataclass, field

from ..core.play import load_replay
from ..core.registry import GAMES
from .schema import name_key
from ..core.records import GameInfo
from .storage import Store
from ..core.contract import Text

RECENT_SCORES = 20  # the scores chart shows this many latest games of each kind


@dataclass
class GameRecord:
    """One game (by id) in a player's record."""

    game_id: str
    title: str
    played: int = 0
    won: int = 0
    scores: list[int] = field(default_factory=list)  # latest first
    best: int | None = None
    # chart title -> label -> values, one per game that names the label
    figures: dict[str, dict[str, list[float]]] = field(default_factory=dict)

    @property
    def average(self) -> float:
        return round(sum(self.scores) / len(self.scores), 2) if self.scores else 0.0

    def summary(self) -> dict:
        return {"played": self.played, "won": self.won, "average": self.average, "best": self.best}

    def charts(self) -> list[dict]:
        """The scores of the latest games (oldest first), then each of the game's own charts."""
        latest = list(reversed(self.scores[:RECENT_SCORES]))
        out = [{"title": Text("Scores of the last {count} games", count=len(latest)) if len(latest) > 1 else "Score",
                "bars": [{"label": str(n), "value": v} for n, v in enumerate(latest, 1)]}]
        for title, labels in self.figures.items():
            out.append({"title": title, "bars": [{"label": label, "value": round(sum(vs) / len(vs), 2)}
                                                 for label, vs in labels.items()]})
        return out

    def add(self, score: int, won: bool, higher_is_better: bool, figures: dict) -> None:
        self.played += 1
        self.won += won
        self.scores.append(score)
        if self.best is None or (score > self.best if higher_is_better else score < self.best):
            self.best = score
        for title, bars in figures.items():
            chart = self.figures.setdefault(title, {})
            for label, value in bars.items():
                chart.setdefault(label, []).append(value)


@dataclass
class PlayerRecord:
    name: str  # as last written at a table
    games: dict[str, GameRecord]
    history: list[tuple[GameInfo, int]]  # (game, seat), latest first

    def as_json(self) -> dict:
        return {"name": self.name, "games": {gid: rec.summary() for gid, rec in self.games.items()}}


def _figures(store: Store, info: GameInfo, seat: int) -> dict:
    """The seat's Game.record: kept with the result, or (a game finished before records were kept)
    from replaying its log."""
    records = info.result.get("records")
    if records is not None and seat < len(records):
        return records[seat]
    table = store.table(info.table_code)
    rep = load_replay(store, table, info.game_no)
    return rep.game.record(rep.state, seat)


def player_record(store: Store, name: str) -> PlayerRecord | None:
    """The record of everyone called `name` on this server, or None if no finished game has them."""
    rows = [(info, seat) for info, seat in store.player_games(name_key(name)) if info.game in GAMES]
    if not rows:
        return None
    games: dict[str, GameRecord] = {}
    for info, seat in reversed(rows):  # oldest first, so that `scores` ends up latest first below
        game = GAMES[info.game]
        rec = games.setdefault(info.game, GameRecord(info.game, game.title))
        rec.add(info.result["totals"][seat], seat in info.result["winners"], game.highest_wins(info.options),
                _figures(store, info, seat))
    for rec in games.values():
        rec.scores.reverse()
    latest, seat = rows[0]
    ordered = {gid: games[gid] for gid in GAMES if gid in games}
    return PlayerRecord(latest.result["names"][seat], ordered, rows)
