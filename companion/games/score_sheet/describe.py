"""Score sheet entries in words, for the table view's "last entry" line ("Ann: Science 2/2/1 → 16")."""
from __future__ import annotations

from companion.platform.sdk import Text

from .rules import view


def describe(seat: int, entry: dict, before, after, names: list[str]) -> str | None:
    name = names[seat]
    if entry.get("kind") == "end":
        return Text("{name} ended the game; empty rows count 0.", name=name)
    if entry.get("kind") != "fill":
        return None
    shown = view(after)
    row = next(r for r in shown["sheet"]["rows"] if r["id"] == entry["row"])
    player = shown["players"][seat]
    filled = player["filled"][row["id"]]
    if row["kind"] != "points":
        return Text("{name}: {row} {filled} \u2192 {points}", name=name, row=row["label"], filled=filled,
                    points=player["rows"][row["id"]])
    return Text("{name}: {row} \u2192 {points}", name=name, row=row["label"], points=player["rows"][row["id"]])
