"""The coach at a DiceZ table: the sheet's panel, the host's build progress, the review, the API.

The table option `coach` says what the coach may tell: "off" nothing; "after_game" nothing until
every sheet is full, then the review; "live" advice during play as well.
"""
from __future__ import annotations

from flask import Blueprint, abort, current_app, g, jsonify, render_template, request

from companion.platform.sdk import (Text, MalformedEntry, RuleError, check_seat_number, play_context, screen_viewer,
                                    seat_required, sheet_viewer)

from . import coach_modes, rules
from .dice_form import form_dice  # the sheet's own reading of the dice fields


def solver_side():
    """The coach's numpy modules, loaded the first time a table asks for the coach (about 15 MB a
    process that no table without a coach should pay)."""
    from . import coach, coach_tables
    return coach, coach_tables

bp = Blueprint("dicez", __name__)

OFF_REASON = Text("The coach is off at this table (the host chose so when starting it).")
AFTER_REASON = Text("At this table the coach speaks only after the game: ask again once every sheet is full.")


def mode(ctx) -> str:
    return ctx.options.get("coach", "off")


def may_speak(ctx) -> bool:
    return mode(ctx) == "live" or (mode(ctx) == "after_game" and ctx.finished)


def table_status(ctx, start: bool = True):
    _, coach_tables = solver_side()
    return coach_tables.status(coach_tables.folder_for(current_app), ctx.options, start=start)


def _this_game(ctx) -> None:
    if ctx.game.id != "dicez":
        abort(404, Text("Table {code} plays {title}: the coach is for DiceZ.", code=ctx.table.code, title=ctx.game.title))


# --- the seat's sheet ---------------------------------------------------------------


def panel(ctx, dice) -> dict:
    """What the coach panel on a sheet shows (`dice`: the five tapped or last rolled, or None)."""
    shown = {"mode": mode(ctx), "speaks": may_speak(ctx), "finished": ctx.finished}
    if not shown["speaks"]:
        return shown
    coach, _ = solver_side()
    status = table_status(ctx)
    shown["progress"] = status.progress
    if status.table is None:
        return shown
    sheet = rules.sheet_of(ctx.replay.state, ctx.seat)
    shown["expected_total"] = coach.expected_total(status.table, sheet)
    if dice is not None and not ctx.finished and sheet.filled < len(rules.BOXES):
        shown.update(_dice_advice(status.table, ctx, sheet, dice))
    return shown


def _dice_advice(table, ctx, sheet, dice) -> dict:
    coach, _ = solver_side()
    try:
        found = coach.choices(table, sheet, dice)
    except RuleError:
        return {}
    top = coach.best(found)
    out = {"choices": found, "best": top.category if top else None}
    roll = coach.roll_number(sheet, dice) if ctx.options.get("roll_by_roll") else None
    if roll in (1, 2):
        out["roll"], out["hold"] = roll, coach.holds(table, sheet, dice, roll)[0]
    return out


def sheet_vars(ctx, dice) -> dict:
    return {"coach": panel(ctx, dice), "labels": rules.BOX_LABELS}


@bp.get("/t/<code>/s/<int:seat>/coach")
@seat_required
def sheet_panel(code, seat):
    """The panel alone, for htmx: asked again whenever the dice on the sheet change."""
    ctx = play_context(sheet_viewer(g.table, seat))
    _this_game(ctx)
    dice, problem = form_dice(request.args)
    if problem or None in dice:
        dice = None
    if dice is None and ctx.options.get("roll_by_roll") and may_speak(ctx):
        coach, _ = solver_side()
        dice = coach.last_roll(ctx.replay.state, seat)
    return render_template("dicez/_coach.html", seat=seat, table=g.table, **sheet_vars(ctx, dice))


# --- the host screen ------------------------------------------------------------------


def host_vars(ctx) -> dict:
    if mode(ctx) == "off":
        return {"coach": None}
    status = table_status(ctx)
    return {"coach": {"mode": mode(ctx), "ready": status.table is not None, "progress": status.progress,
                      "finished": ctx.finished, "label": coach_modes.MODE_LABELS[mode(ctx)]}}


@bp.get("/t/<code>/coach/progress")
def host_progress(code):
    if not g.host:
        abort(403, "Only the host's screen shows the coach's progress.")
    ctx = play_context(screen_viewer())
    _this_game(ctx)
    return render_template("dicez/_coach_host.html", table=g.table, **host_vars(ctx))


# --- after the game -----------------------------------------------------------------


def review_of(ctx, table) -> tuple[list, list]:
    coach, _ = solver_side()
    rep = ctx.replay
    steps = [(e.seat, rules.sheet_of(before, e.seat), e.as_entry()) for e, before in zip(rep.effective, rep.before)]
    decisions = coach.review(table, steps)
    return decisions, coach.summary(decisions, len(ctx.table.seats))


@bp.get("/t/<code>/coach")
def review(code):
    ctx = play_context(screen_viewer())
    _this_game(ctx)
    if mode(ctx) == "off":
        abort(409, OFF_REASON)
    if not may_speak(ctx):
        abort(409, AFTER_REASON)
    status = table_status(ctx)
    decisions, totals = review_of(ctx, status.table) if status.table is not None else ([], [])
    return render_template("dicez/coach_review.html", table=g.table, names=ctx.names, game=ctx.game,
                           decisions=decisions, summary=totals, progress=status.progress,
                           ready=status.table is not None, finished=ctx.finished, labels=rules.BOX_LABELS)


# --- the API --------------------------------------------------------------------------


def _query_int(name: str, low: int, high: int, required: bool) -> int | None:
    raw = request.args.get(name)
    if raw is None or raw == "":
        if required:
            abort(400, Text('Say which {name}: "{name}" from {low} to {high}.', name=name, low=low, high=high))
        return None
    try:
        value = int(raw)
    except ValueError:
        abort(400, Text('"{name}" must be a whole number from {low} to {high}; got {raw!r}.', name=name, low=low, high=high, raw=raw[:20]))
    if not low <= value <= high:
        abort(400, Text('"{name}" must be from {low} to {high}; got {value}.', name=name, low=low, high=high, value=value))
    return value


def _query_dice() -> list[int] | None:
    raw = request.args.get("dice")
    if raw is None:
        return None
    try:
        return [int(part) for part in raw.split(",")]
    except ValueError:
        raise MalformedEntry('"dice" is five whole numbers separated by commas, like 1,2,3,4,5; got {raw!r}.', raw=raw[:30]) from None


@bp.get("/api/tables/<code>/coach")
def coach_api(code):
    ctx = play_context(screen_viewer())
    _this_game(ctx)
    seat = _query_int("seat", 0, len(g.table.seats) - 1, required=True)
    check_seat_number(seat)
    if mode(ctx) == "off":
        return jsonify(error=OFF_REASON, coach="off"), 409
    if not may_speak(ctx):
        return jsonify(error=AFTER_REASON, coach=mode(ctx)), 409
    roll = _query_int("roll", 1, 2, required=False)
    try:
        dice = _query_dice()
        if roll is not None and dice is None:
            raise MalformedEntry('Hold advice needs the dice of that roll: add "dice=a,b,c,d,e".')
        status = table_status(ctx)
        if status.table is None:
            resp = jsonify(error=Text("The coach is still solving these rules; try again in a few seconds."),
                           progress=round(status.progress or 0.0, 3))
            return resp, 503, {"Retry-After": "5"}
        coach, _ = solver_side()
        answer = coach.advice(status.table, rules.sheet_of(ctx.replay.state, seat), dice, roll)
    except RuleError as exc:
        return jsonify(error=exc.reason), 400 if isinstance(exc, MalformedEntry) else 422
    return jsonify(seat=seat, coach=mode(ctx), **answer)
