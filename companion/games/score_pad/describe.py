"""Score pad entries in words, for the table view's "last entry" line."""
from __future__ import annotations

from . import rules


def describe(seat: int, entry: dict, before: rules.State, after: rules.State, names: list[str]) -> str | None:
    name = names[seat]
    if entry.get("kind") == "finish":
        return f"{name} finished the game after round {rules.rounds_complete(after)}."
    if entry.get("kind") != "score":
        return None
    column = after.scores[seat]
    return f"{name} scored {column[-1]} in round {len(column)}, {sum(column)} in all."
