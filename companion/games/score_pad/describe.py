"""Score pad entries in words, for the table view's "last entry" line."""
from __future__ import annotations

from companion.platform.sdk import Text

from . import rules


def describe(seat: int, entry: dict, before: rules.State, after: rules.State, names: list[str]) -> str | None:
    name = names[seat]
    if entry.get("kind") == "finish":
        return Text("{name} finished the game after round {round}.", name=name, round=rules.rounds_complete(after))
    if entry.get("kind") != "score":
        return None
    column = after.scores[seat]
    return Text("{name} scored {points} in round {round}, {total} in all.", name=name, points=column[-1],
                round=len(column), total=sum(column))
