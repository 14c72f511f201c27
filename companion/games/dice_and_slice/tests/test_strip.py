"""The shared topping-bonus strip shows each bonus as open, scored this turn (by whom) or crossed out.

DS-12: the first player or players to make a bonus's exact toppings score it; it then closes for
everyone else. The engine tests play that out; here the strip is rendered from a real table's view
with the bonus states a game reaches, as every phone and the table view draw them.
"""
from __future__ import annotations

import re

from flask import get_template_attribute

from companion.platform.core.play import load_replay
from tests.helpers import new_table


def strip_html(app, store, code, states, me=None, finished=False):
    table = store.table(code)
    rep = load_replay(store, table)
    from companion.games.dice_and_slice.web import table_context

    from companion.platform.web.context import PlayContext
    from companion.platform.core.contract import Viewer

    ctx = table_context(PlayContext(table, rep, Viewer.table()))
    view = dict(ctx["view"])
    view["topping_bonuses"] = [dict(b, **s) for b, s in zip(view["topping_bonuses"], states)]
    view["finished"] = finished
    with app.test_request_context():
        strip = get_template_attribute("dice_and_slice/_svg.html", "bonus_strip")
        return str(strip(view, ctx["tops"], ["Ann", "Ben", "Cy"], ctx["seat_style"], me))


def item(html, n):
    match = re.search(rf'<li[^>]*data-testid="bonus-{n}"[^>]*>(.*?)</li>', html, re.S)
    assert match, f"bonus {n} not drawn"
    return match.group(0)


def test_strip_shows_open_scored_and_crossed_out_bonuses(app, client, store):  # DS-12
    table = new_table(client, ["Ann", "Ben", "Cy"], game="dice_and_slice")
    states = [
        {"status": "open", "scored_by": [], "turn": None},
        {"status": "scored", "scored_by": [1], "turn": 3},
        {"status": "closed", "scored_by": [0, 2], "turn": 2},
    ]
    html = strip_html(app, store, table["code"], states)
    assert 'data-status="open"' in item(html, 0) and "open" in item(html, 0)
    assert "scored this turn by" in item(html, 1) and "Ben" in item(html, 1)
    closed = item(html, 2)
    said = re.sub(r"<[^>]+>|\s+", " ", closed)
    assert re.search(r"won by .*Ann and .*Cy in turn 2; crossed out for the others", said), said
    assert "<s>" not in closed  # the words say what happened; only the toppings and points are struck
    # on the phone of a player who scored it, the closed bonus reads as theirs
    mine = item(strip_html(app, store, table["code"], states, me=0), 2)
    assert "scored by you" in mine and "Cy in turn 2" in mine and "crossed out" not in mine


def test_after_the_game_the_strip_shows_how_each_bonus_ended_not_open(app, client, store):  # DS-12, DS-14
    table = new_table(client, ["Ann", "Ben", "Cy"], game="dice_and_slice")
    states = [{"status": "open", "scored_by": [], "turn": None},
              {"status": "closed", "scored_by": [1], "turn": 4}]
    html = strip_html(app, store, table["code"], states, finished=True)
    never = re.sub(r"<[^>]+>", "", item(html, 0))
    assert "nobody made it" in never and "open" not in never
    assert "crossed out" in item(html, 1) and "Ben" in item(html, 1)
