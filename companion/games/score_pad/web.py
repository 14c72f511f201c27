"""Score pad on a phone: type this round's score (or nudge it with the quick buttons) and enter it;
the whole pad is drawn below it. The table view shows the grid of rounds by players.

A live refresh never redraws the number a player is typing: it swaps the status lines and the
grid only. When the sheet has to change shape (the round this seat waited for is complete, or
the game is over), the refreshed head asks for the whole sheet once (see `sheet_context`).
"""
from __future__ import annotations

import re

from companion.platform.sdk import Text, GameWeb

# the quick buttons: what each adds to the typed score ("neg" flips its sign, for keyboards without a minus)
QUICK_STEPS = {"-10": -10, "-1": -1, "+1": 1, "+10": 10}
NEGATE = "neg"
QUICK_BUTTONS = (  # (value, label, what a screen reader says)
    ("-10", "\u221210", Text("10 less")), ("-1", "\u22121", Text("1 less")), (NEGATE, "\u00b1", Text("Change the sign")),
    ("+1", "+1", Text("1 more")), ("+10", "+10", Text("10 more")),
)
# a whole number as people type it; anything else goes to the rules as typed, and they say what is wrong
WHOLE_NUMBER = re.compile(r"[+-]?[0-9]{1,15}")
TYPOGRAPHIC_MINUS = "\u2212"


def number_or_text(raw) -> int | str | None:
    """A form field as the rules should judge it: an int, the text itself, or None when empty."""
    text = (raw or "").strip().replace(TYPOGRAPHIC_MINUS, "-")
    if not text:
        return None
    return int(text) if WHOLE_NUMBER.fullmatch(text) else text


def draft_points(form) -> int | str | None:
    """The score on the sheet: what was typed, moved by the quick button that was tapped."""
    points = number_or_text(form.get("points"))
    step = form.get("adjust")
    if step is None or isinstance(points, str):
        return points
    if step == NEGATE:
        return -(points or 0)
    if step in QUICK_STEPS:
        return (points or 0) + QUICK_STEPS[step]
    return points


def entry_from_form(form, ctx) -> dict:
    if form.get("action") == "finish":
        return {"kind": "finish"}
    points = number_or_text(form.get("points"))
    return {"kind": "score"} if points is None else {"kind": "score", "points": points}


def entry_mode(view: dict, seat: int) -> str:
    """What the sheet's entry area shows: "enter" a score, "wait" for the round, or "over"."""
    if view["finished"]:
        return "over"
    return "enter" if view["players"][seat]["waiting"] else "wait"


def sheet_context(ctx, form) -> dict:
    view = ctx.view
    points = draft_points(form)
    pad = ctx.hints({} if points is None else {"points": points})
    mode = entry_mode(view, ctx.seat)
    # A live refresh sends the mode its page was drawn in; if that is no longer the mode, the head
    # carries a one-time loader that fetches the whole sheet (the entry area changes shape).
    shown_mode = form.get("mode")
    return {
        "me": view["players"][ctx.seat],
        "pad": pad,
        "draft": "" if points is None else points,
        "mode": mode,
        "reload_sheet": shown_mode is not None and shown_mode != mode,
        "quick_buttons": QUICK_BUTTONS,
    }


def create_options(form, players) -> dict:
    """The start page's fields, passed on for the rules to check (SP-2); blank means "not set"."""
    options = {}
    wins = (form.get("score_pad_wins") or "").strip()
    if wins:
        options["wins"] = wins
    game_name = " ".join((form.get("score_pad_name") or "").split())
    if game_name:
        options["name"] = game_name
    for name in ("rounds", "target"):
        value = number_or_text(form.get(f"score_pad_{name}"))
        if value is not None:
            options[name] = value
    return options


WEB = GameWeb(
    sheet_template="score_pad/sheet.html",
    table_template="score_pad/board.html",
    preview_template="score_pad/_entry.html",
    entry_from_form=entry_from_form,
    sheet_context=sheet_context,
    create_options=create_options,
    options_template="score_pad/options.html",
    assets=("score_pad/pad.css",),
    view_styles=("score_pad/view.css",),
    offline_scripts=("score_pad/offline.js",),
)
