"""The host ends the game from the host screen (SS-10): the end entry, written for a seat the game
still waits for, as the platform lets a host write a game's host kinds."""
from __future__ import annotations

from flask import abort, g, redirect, render_template, url_for

from companion.platform.sdk import Text, RuleError, TableError, record, store

from .library import bp

GAME_ID = "score_sheet"


def host_context(ctx) -> dict:
    return {"ss_may_end": not ctx.finished and bool(ctx.view["waiting_for"])}


@bp.post("/t/<code>/score-sheet/end")
def host_end(code):
    table = g.table
    if table.game != GAME_ID:
        abort(404, Text("Table {code} is not playing Score sheet.", code=table.code))
    if not g.host:
        abort(403, "Only the host can end the game for everyone.")
    rep = g.replay
    waiting = rep.game.waiting_for(rep.state)
    try:
        if not waiting:
            raise RuleError("The game is over.", rule="SS-10")
        record(store(), table, waiting[0], {"kind": "end"}, replay=rep, by_host=True)
    except (RuleError, TableError) as exc:
        status = 422 if isinstance(exc, RuleError) else exc.status
        return render_template("score_sheet/host_refused.html", table=table, error=exc.reason), status
    return redirect(url_for("pages.host", code=table.code), 303)
