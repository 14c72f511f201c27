"""DiceZ entries in words, for the table view's "last entry" line."""
from __future__ import annotations

from . import rules


def describe(seat: int, entry: dict, before: rules.State, after: rules.State, names: list[str]) -> str | None:
    name = names[seat]
    if entry.get("kind") == "roll":
        rolls = after.sheets[seat].rolls
        dice = " ".join(str(d) for d in rolls[-1])
        return f"{name} rolled {dice} (roll {len(rolls)} of {rules.MAX_ROLLS_PER_TURN})."
    box = entry.get("category")
    if entry.get("kind") != "score" or box not in rules.BOXES:
        return None
    was, now = before.sheets[seat], after.sheets[seat]
    text = f"{name} scored {now.by_box()[box]} in {rules.BOX_LABELS[box]}"
    if now.upper_bonus > was.upper_bonus:
        text += f" and earned the upper bonus of {rules.UPPER_BONUS}"
    if now.extra_bonus > was.extra_bonus:
        text += f", with a DiceZ bonus of {now.extra_bonus - was.extra_bonus}"
    return text + "."
