"""Score sheet entries in words, for the table view's "last entry" line ("Ann: Science 2/2/1 → 16")."""
from __future__ import annotations

from .rules import view


def describe(seat: int, entry: dict, before, after, names: list[str]) -> str | None:
    name = names[seat]
    if entry.get("kind") == "end":
        return f"{name} ended the game; empty rows count 0."
    if entry.get("kind") != "fill":
        return None
    shown = view(after)
    row = next(r for r in shown["sheet"]["rows"] if r["id"] == entry["row"])
    player = shown["players"][seat]
    filled = player["filled"][row["id"]]
    words = f" {filled}" if row["kind"] != "points" else ""
    return f"{name}: {row['label']}{words} \u2192 {player['rows'][row['id']]}"
