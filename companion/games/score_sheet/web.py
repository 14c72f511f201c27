"""Score sheet on a phone: every row of the sheet with its input (a number, a count with steppers,
yes/no, or a formula's inputs), the row's points and the running total. The table view shows the
grid of rows by players, the totals and the ranks.

A live refresh never redraws the rows a player is filling: it swaps the head and the status only;
when the game ends, the head asks once for the whole sheet (see `sheet_context`).
"""
from __future__ import annotations

import re

from companion.platform.sdk import GameWeb

from .host_end import host_context
from .library import bp, listed

WHOLE_NUMBER = re.compile(r"[+-]?[0-9]{1,15}")
TYPOGRAPHIC_MINUS = "\u2212"
INPUT_PREFIX = "in_"


def number_or_text(raw) -> int | str | None:
    """A form field as the rules should judge it: an int, the text itself, or None when empty."""
    text = (raw or "").strip().replace(TYPOGRAPHIC_MINUS, "-")
    if not text:
        return None
    return int(text) if WHOLE_NUMBER.fullmatch(text) else text


def entry_from_form(form, ctx) -> dict:
    """The row's form as an entry; the rules judge the values (SS-4), so nothing is checked here."""
    if form.get("action") == "end":
        return {"kind": "end"}
    entry = {"kind": "fill", "row": form.get("row") or ""}
    inputs = {name[len(INPUT_PREFIX):]: number_or_text(form.get(name)) for name in form if name.startswith(INPUT_PREFIX)}
    if inputs:
        entry["inputs"] = inputs
    else:
        entry["value"] = number_or_text(form.get("value"))
    return entry


def sheet_context(ctx, form) -> dict:
    view = ctx.view
    mode = "over" if view["finished"] else "fill"
    shown_mode = form.get("mode")
    return {
        "me": view["players"][ctx.seat],
        "mode": mode,
        "reload_sheet": shown_mode is not None and shown_mode != mode,
        "may_end": not view["finished"],
    }


def create_options(form, players) -> dict:
    """The start page's sheet choice, passed on for the rules to check (SS-1)."""
    sheet = (form.get("score_sheet_sheet") or "").strip()
    return {"sheet": sheet} if sheet else {}


def options_context() -> dict:
    """The start page's list of sheets to choose from."""
    return {"sheets": listed()}


WEB = GameWeb(
    sheet_template="score_sheet/sheet.html",
    table_template="score_sheet/board.html",
    entry_from_form=entry_from_form,
    sheet_context=sheet_context,
    create_options=create_options,
    options_template="score_sheet/options.html",
    options_context=options_context,
    assets=("score_sheet/sheet.css", "score_sheet/sheet.js"),
    blueprint=bp,
    host_template="score_sheet/host_end.html",
    host_context=host_context,
)
