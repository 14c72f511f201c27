"""DiceZ on a phone: tap five dice, see what each open box would score, tap a box.

A die tap posts the dice as a draft; the answer is only the box list and the sheet's head
(`dicez/_preview.html`), drawn from the rules' hints, so the dice under the player's finger are
never re-rendered.
"""
from __future__ import annotations

from companion.platform.contract import RuleError
from companion.platform.gameweb import GameWeb, int_field

from . import coach_web, rules

DIE_FACES = "⚀⚁⚂⚃⚄⚅"
OPTION_FIELDS = ("five_of_a_kind_full_house", "extra_dicez_bonus", "joker", "roll_by_roll")


def dice_from_form(form) -> list[int] | None:
    """The five dice the form holds, or None while some are not chosen yet."""
    values = [(form.get(f"d{i}") or "").strip() for i in range(rules.DICE_PER_ROLL)]
    if not any(values):
        return None
    return [int_field(form, f"d{i}", f"die {i + 1}", 1, 6) for i in range(rules.DICE_PER_ROLL)]


def entry_from_form(form, ctx) -> dict:
    action = form.get("action", "score")
    dice = dice_from_form(form)
    if action == "roll":
        if dice is None:
            raise RuleError("Enter the five dice you rolled.")
        held = [i for i in range(rules.DICE_PER_ROLL) if form.get(f"hold{i}")]
        return {"kind": "roll", "dice": dice, "held": held}
    category = form.get("category", "")
    if category not in rules.BOXES:
        raise RuleError("Choose a box to score.")
    entry = {"kind": "score", "category": category}
    if dice is not None:
        entry["dice"] = dice
    elif not ctx.options.get("roll_by_roll"):
        raise RuleError("Enter all five dice first.")
    return entry


def sheet_context(ctx, form) -> dict:
    me = ctx.view["players"][ctx.seat]
    draft, form_error = {}, None
    try:
        dice = dice_from_form(form)
    except RuleError as exc:
        dice, form_error = None, exc.reason
    if dice is not None:
        draft["dice"] = dice
    hints = ctx.hints(draft)
    return {
        "me": me,
        "dice": hints["dice"] or [None] * rules.DICE_PER_ROLL,
        "preview": hints["boxes"],
        "form_error": form_error,
        "roll_by_roll": ctx.options.get("roll_by_roll"),
        **_labels(),
        **coach_web.sheet_vars(ctx, hints["dice"]),
    }


def table_context(ctx) -> dict:
    return _labels()


def _labels() -> dict:
    return {"boxes": rules.BOXES, "upper": rules.UPPER, "labels": rules.BOX_LABELS, "faces": DIE_FACES,
            "box_count": len(rules.BOXES)}


def create_options(form, players) -> dict:
    chosen = {name: True for name in OPTION_FIELDS if form.get(f"dicez_{name}")}
    return {**chosen, "coach": form.get("dicez_coach") or "off"}


WEB = GameWeb(
    sheet_template="dicez/sheet.html",
    table_template="dicez/board.html",
    preview_template="dicez/_preview.html",
    entry_from_form=entry_from_form,
    sheet_context=sheet_context,
    table_context=table_context,
    create_options=create_options,
    options_template="dicez/options.html",
    blueprint=coach_web.bp,
    host_template="dicez/_coach_host.html",
    host_context=coach_web.host_vars,
)
