"""Reading the five dice out of a DiceZ form (the sheet's taps, the coach panel's query): one
reading for both, so a die the sheet accepts is one the coach reads."""
from __future__ import annotations

from . import rules
from companion.platform.sdk import Text

SLOTS = range(rules.DICE_PER_ROLL)
FACE_TEXT = {str(face): face for face in range(1, 7)}
SLOT_TEXT = {str(slot): slot for slot in SLOTS}


def read_die(text) -> int | None:
    return FACE_TEXT.get((text or "").strip())


def read_slot(text) -> int | None:
    return SLOT_TEXT.get((text or "").strip())


def form_dice(form) -> tuple[list[int | None], str | None]:
    """The dice the form holds, one per slot (None: not entered), and what is wrong with any die
    that holds something other than 1 to 6."""
    dice, problem = [], None
    for i in SLOTS:
        raw = (form.get(f"d{i}") or "").strip()
        dice.append(read_die(raw))
        if raw and dice[-1] is None and problem is None:
            problem = Text("Die {number} must be a number from 1 to 6.", number=i + 1)
    return dice, problem
