"""DiceZ on a phone: tap five dice, see what each open box would score, tap a box."""
from __future__ import annotations

from functools import lru_cache

from markupsafe import Markup

from ..rules import RuleError
from ..rules import dicez as engine
from .ui import GameUI, int_field, register_ui

DIE_FACES = "⚀⚁⚂⚃⚄⚅"


def dice_from_form(form) -> list[int] | None:
    """The five dice the form holds, or None while some are not chosen yet."""
    values = [(form.get(f"d{i}") or "").strip() for i in range(5)]
    if not any(values):
        return None
    return [int_field(form, f"d{i}", f"die {i + 1}", 1, 6) for i in range(5)]


def entry_from_form(form, rep, seat) -> dict:
    action = form.get("action", "score")
    dice = dice_from_form(form)
    if action == "roll":
        if dice is None:
            raise RuleError("Enter the five dice you rolled.")
        held = [i for i in range(5) if form.get(f"hold{i}")]
        return {"kind": "roll", "dice": dice, "held": held}
    category = form.get("category", "")
    if category not in engine.BOXES:
        raise RuleError("Choose a box to score.")
    entry = {"kind": "score", "category": category}
    if dice is not None:
        entry["dice"] = dice
    elif not rep.info.options.get("roll_by_roll"):
        raise RuleError("Enter all five dice first.")
    return entry


@lru_cache(maxsize=2048)
def dice_rows(dice: tuple, holds: bool) -> Markup:
    """The five rows of tappable dice, with `dice` checked. The same for every sheet, so cached:
    it is most of the sheet's markup, and rendering it each time was the slowest part of a tap."""
    rows = []
    for i in range(5):
        pips = "".join(
            f'<label class="pip"><input type="radio" name="d{i}" value="{v}"{" checked" if dice[i] == v else ""}'
            f' data-testid="die-{i}-{v}" aria-label="Die {i + 1}: {v}"><span>{DIE_FACES[v - 1]}<small>{v}</small></span></label>'
            for v in range(1, 7))
        rows.append(f'<div class="die-row" role="radiogroup" aria-label="Die {i + 1}">'
                    f'<span class="die-label" aria-hidden="true">{i + 1}</span>{pips}</div>')
    if holds:  # a row of its own: beside six dice there is no room for a checkbox on a phone
        toggles = "".join(
            f'<label class="hold"><input type="checkbox" name="hold{i}" value="1" data-testid="hold-{i}">'
            f'<span>Hold {i + 1}</span></label>' for i in range(5))
        rows.append(f'<div class="hold-row" role="group" aria-label="Dice kept from the last roll">{toggles}</div>')
    return Markup("\n".join(rows))


def sheet_context(rep, seat, form) -> dict:
    view = rep.game.view(rep.state, seat)
    me = view["players"][seat]
    options = view["options"]
    dice = None
    error = None
    try:
        dice = dice_from_form(form)
    except RuleError as exc:
        error = exc.reason
    if dice is None and options.get("roll_by_roll") and me.get("rolls"):
        dice = list(me["rolls"][-1])
    preview = engine.preview(rep.state, seat, dice) if dice and not rep.finished and me["filled"] < 13 else {}
    return {
        "me": me,
        "view": view,
        "dice": dice or [None] * 5,
        "dice_complete": dice is not None,
        "preview": preview,
        "boxes": engine.BOXES,
        "upper": engine.UPPER,
        "labels": engine.BOX_LABELS,
        "faces": DIE_FACES,
        "form_error": error,
        "roll_by_roll": options.get("roll_by_roll"),
        "dice_rows": dice_rows(tuple(dice or [None] * 5), bool(options.get("roll_by_roll"))),
    }


def table_context(rep) -> dict:
    return {"view": rep.game.view(rep.state, None), "boxes": engine.BOXES,
            "labels": engine.BOX_LABELS, "upper": engine.UPPER}


def create_options(form) -> dict:
    return {name: True for name in ("five_of_a_kind_full_house", "extra_dicez_bonus", "joker", "roll_by_roll")
            if form.get(f"dicez_{name}")}


register_ui(GameUI(
    game_id="dicez",
    sheet_template="dicez/sheet.html",
    table_template="dicez/board.html",
    entry_from_form=entry_from_form,
    sheet_context=sheet_context,
    table_context=table_context,
    create_options=create_options,
    options_template="dicez/options.html",
))
