"""DiceZ entries in words, for the table view's "last entry" line."""
from __future__ import annotations

from companion.platform.sdk import Text

from . import rules


def describe(seat: int, entry: dict, before: rules.State, after: rules.State, names: list[str]) -> str | None:
    name = names[seat]
    if entry.get("kind") == "roll":
        rolls = after.sheets[seat].rolls
        dice = " ".join(str(d) for d in rolls[-1])
        return Text("{name} rolled {dice} (roll {roll} of {rolls}).", name=name, dice=dice, roll=len(rolls),
                    rolls=rules.MAX_ROLLS_PER_TURN)
    box = entry.get("category")
    if entry.get("kind") != "score" or box not in rules.BOXES:
        return None
    was, now = before.sheets[seat], after.sheets[seat]
    text = Text("{name} scored {points} in {box}", name=name, points=now.by_box()[box], box=rules.BOX_LABELS[box])
    if now.upper_bonus > was.upper_bonus:
        text = Text("{text} and earned the upper bonus of {bonus}", text=text, bonus=rules.UPPER_BONUS)
    if now.extra_bonus > was.extra_bonus:
        text = Text("{text}, with a DiceZ bonus of {bonus}", text=text, bonus=now.extra_bonus - was.extra_bonus)
    return Text("{text}.", text=text)
