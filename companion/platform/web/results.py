"""Pages about finished games: a player's record across games and a game's result card."""
from __future__ import annotations

from flask import Blueprint, Response, abort, g, render_template, url_for

from .context import store
from ..core.contract import Text
from .i18n import localize
from ..store.players import player_record
from .share import bgstats_link, card_facts, card_png

results = Blueprint("results", __name__)


@results.get("/players/<path:name>")
def player(name):
    rec = player_record(store(), name)
    if rec is None:
        abort(404, "Nobody of that name has finished a game on this server yet.")
    return render_template("results/player.html", rec=rec)


def _finished_game(game_no: int):
    # a number past the table's games is asked of no database (one beyond 64 bits fits no column)
    info = store().game(g.table.code, game_no) if 1 <= game_no <= g.table.current_game else None
    if info is None:
        abort(404, Text("Table {code} has no game {game_no}.", code=g.table.code, game_no=game_no))
    if info.finished_at is None or not info.result:
        abort(409, "This game is not over yet: its result card comes at the end.")
    return info


def finale(table, info) -> dict | None:
    """The links a finished game's screens offer: BG Stats, the result card, each player's record.
    `info` is the replay's own game row (loaded with the log, refreshed by the entry that ended it)."""
    if info.finished_at is None or not info.result:
        return None
    game_no = info.game_no
    return {"bgstats": bgstats_link(info),
            "card_svg": url_for("results.card_svg", code=table.code, game_no=game_no),
            "card_png": url_for("results.card_png_file", code=table.code, game_no=game_no),
            "players": [{"name": n, "url": url_for("results.player", name=n)} for n in info.result["names"]]}


@results.get("/t/<code>/games/<int:game_no>/card.svg")
def card_svg(code, game_no):
    facts = card_facts(_finished_game(game_no))
    return Response(render_template("results/card.svg", card=facts), mimetype="image/svg+xml")


@results.get("/t/<code>/games/<int:game_no>/card.png")
def card_png_file(code, game_no):
    facts = card_facts(_finished_game(game_no))
    return Response(card_png({**facts, "where": localize(facts["where"])}), mimetype="image/png",
                    headers={"Content-Disposition": f'inline; filename="{g.table.code}-{game_no}.png"'})
