"""DiceZ on a phone: one screen per turn. Five die slots and one row of six faces (a face fills the
next empty slot; tap a slot to change it), then a grid of the thirteen boxes with what each would score.

Without JavaScript every face, slot and box is a submit button: the server works out the dice from the
form (`dice_draft`) and draws the page again. With JavaScript (its static/sheet.js) the slots are
filled on the phone, and a preview answers only the boxes and the sheet's head (`dicez/_preview.html`),
so the dice under the player's finger are never drawn again by the server.
"""
from __future__ import annotations

from companion.platform.sdk import Text, GameWeb, RuleError

from . import coach_web, photo_web, rules  # noqa: F401 - photo_web adds the dice reader's route
from .dice_form import SLOTS, form_dice, read_die, read_slot

DIE_FACES = "⚀⚁⚂⚃⚄⚅"
HOUSE_RULES = ("five_of_a_kind_full_house", "extra_dicez_bonus", "joker", "roll_by_roll")
# the thirteen boxes and the upper bonus as the phone lays them out, three to a row
GRID = (*rules.UPPER, "upper_bonus", *rules.LOWER, "total")


def dice_draft(form) -> tuple[list[int | None], int | None, str | None]:
    """What a tap on the dice makes of the form (the no-JavaScript path; sheet.js does the same on
    the phone): (dice, the slot the next face goes into, a problem with the form)."""
    dice, problem = form_dice(form)
    if form.get("clear"):
        return [None] * len(dice), 0, problem
    chosen = read_slot(form.get("slot"))
    if chosen is not None:  # a tapped slot takes the next face
        return dice, chosen, problem
    target = read_slot(form.get("cursor"))
    if target is None:
        target = next_empty(dice)
    face = read_die(form.get("face"))
    if face is not None and target is not None:
        dice[target] = face
        target = next_empty(dice)
    return dice, target, problem


def next_empty(dice) -> int | None:
    return next((i for i, die in enumerate(dice) if die is None), None)


def missing_dice(dice) -> str | None:
    """What to enter before a box can be chosen, or None when all five dice are in."""
    gap = next_empty(dice)
    if gap is None:
        return None
    if all(die is None for die in dice):
        return Text("Enter your five dice first.")
    return Text("Enter die {number} first.", number=gap + 1)


def next_step(dice, cursor) -> str:
    """What the player does next with the dice on the slots (`cursor`: the slot the next face fills)."""
    if not any(dice):
        return Text("Enter your five dice.")
    if cursor is None:
        return Text("Tap a box to score these dice.")
    return Text("Tap the face for die {number}.", number=cursor + 1)


def entry_from_form(form, ctx) -> dict:
    action = form.get("action", "score")
    dice, problem = form_dice(form)
    if problem:
        raise RuleError(problem)
    entered = dice if None not in dice else None
    if action == "roll":
        if entered is None:
            raise RuleError(missing_dice(dice))
        held = [i for i in SLOTS if form.get(f"hold{i}")]
        return {"kind": "roll", "dice": entered, "held": held}
    category = form.get("category", "")
    if category not in rules.BOXES:
        raise RuleError("Choose a box to score.")
    entry = {"kind": "score", "category": category}
    if entered is not None:
        entry["dice"] = entered
    elif any(die is not None for die in dice) or not ctx.view["options"].get("roll_by_roll"):
        # a half-entered throw is never scored; roll by roll may score the last roll with no dice
        raise RuleError(missing_dice(dice))
    return entry


def sheet_context(ctx, form) -> dict:
    me = ctx.view["players"][ctx.seat]
    dice, cursor, form_error = dice_draft(form)
    if None not in dice:
        hints = ctx.hints({"dice": dice})
    elif not any(dice):
        hints = ctx.hints({})  # with roll by roll, the last roll recorded
        if hints["dice"]:
            dice, cursor = list(hints["dice"]), None
    else:
        hints = {"boxes": {}}  # half a throw scores nothing yet
    return {
        "me": me,
        "dice": dice,
        "cursor": cursor,
        "preview": hints["boxes"],
        "form_error": form_error,
        "missing": missing_dice(dice),
        "next_step": next_step(dice, cursor),
        "turn": _turn_words(ctx),
        "roll_by_roll": ctx.view["options"].get("roll_by_roll"),
        **_labels(),
        **coach_web.sheet_vars(ctx, dice if None not in dice else None),
    }


def _turn_words(ctx) -> dict | None:
    """Whose turn it is, for this phone: None in free play and once the game is over."""
    turn = ctx.view.get("turn")
    if turn is None:
        return None
    return {"seat": turn, "mine": turn == ctx.seat, "name": ctx.names[turn]}


def table_context(ctx) -> dict:
    return {**_labels(), "upper_decided": [upper_decided(p["sheet"]) for p in ctx.view["players"]]}


def upper_decided(sheet: dict) -> bool:
    """Whether a sheet's upper bonus is settled: earned, or every upper box filled without it. Until
    then the table view leaves it blank rather than showing everyone a 0 from the start."""
    return bool(sheet["upper_bonus"]) or all(sheet[box] is not None for box in rules.UPPER)


def _labels() -> dict:
    return {"boxes": rules.BOXES, "upper": rules.UPPER, "labels": rules.BOX_LABELS, "faces": DIE_FACES,
            "box_count": len(rules.BOXES), "grid": GRID}


def create_options(form, players) -> dict:
    options = {name: True for name in HOUSE_RULES if form.get(f"dicez_{name}")}
    # The start form sends a hidden "0" before the ticked box's "1": a form without the field at all
    # (another client) leaves turn order to its default.
    sent = form.getlist("dicez_turn_order") if hasattr(form, "getlist") else []
    if sent:
        options["turn_order"] = "1" in sent
    return {**options, "coach": form.get("dicez_coach") or "off"}


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
    assets=("dicez/sheet.css", "dicez/sheet.js"),
    offline_scripts=("dicez/offline.js",),
)
