"""The authorisation matrix: every route of the app, asked by every kind of credential.

One row per (endpoint, method) of `app.url_map`: a route added without a row fails here, so nobody
adds a route without saying who may use it. "May use" means the answer is not a refusal for want
of a credential (401/403); a route that is allowed may still answer 400/404/409/422 to the empty
request this test sends, and nothing may answer 5xx.

Page credentials: a stranger who knows the table code ("anyone"), a device invited by the join
link but holding no seat ("invited"), the phone holding seat 0 ("player"), the phone holding seat 1
("other"), the host's browser ("host"). Seat routes are asked about seat 0. API credentials: no
token ("none"), seat 0's token ("seat"), seat 1's ("other"), the host token ("host").
"""
from __future__ import annotations

import pytest

from companion import create_app
from companion.platform.core.registry import GAMES
from tests.helpers import bearer, csrf_from, invite, join_seat, start_table_page

PAGE = ("anyone", "invited", "player", "other", "host")
API = ("none", "seat", "other", "host")
ALL_PAGE, ALL_API = set(PAGE), set(API)
INVITED = {"invited", "player", "other", "host"}

MATRIX: dict[tuple[str, str], set[str]] = {
    # open to everyone: starting and finding tables, static files, the editions' library
    ("pages.home", "GET"): ALL_PAGE,
    ("pages.history", "GET"): ALL_PAGE,
    ("i18n.choose", "GET"): ALL_PAGE,  # the language switch: a preference cookie, then back to the page
    ("pages.create_table", "POST"): ALL_PAGE,
    ("pages.join_with_pin", "POST"): ALL_PAGE,  # the PIN is the credential (rate-limited)
    ("static", "GET"): ALL_PAGE,
    ("pages.service_worker", "GET"): ALL_PAGE,  # static/sw.js at the top of the site
    ("dice_and_slice.editions", "GET"): ALL_PAGE,
    ("dice_and_slice.edition_default", "GET"): ALL_PAGE,
    ("dice_and_slice.edition_new", "GET"): ALL_PAGE,
    ("dice_and_slice.edition_show", "GET"): ALL_PAGE,
    ("dice_and_slice.edition_save", "POST"): ALL_PAGE,
    ("dice_and_slice.edition_export", "GET"): ALL_PAGE,
    ("dice_and_slice.edition_import", "POST"): ALL_PAGE,
    ("dice_and_slice.edition_share", "GET"): ALL_PAGE,
    ("dice_and_slice.edition_receive", "GET"): ALL_PAGE,
    ("dice_and_slice.edition_receive_link", "GET"): ALL_PAGE,
    ("dice_and_slice.edition_receive_import", "POST"): ALL_PAGE,
    # an edition is changed or deleted only by the browser that made it: not a table credential, so
    # companion/games/dice_and_slice/tests/test_edition_owners.py asks it of two browsers
    ("dice_and_slice.edition_delete", "POST"): ALL_PAGE,
    # Score sheet's library: anyone may read the sheets and save one of their own (owned by the browser)
    ("score_sheet.library_page", "GET"): ALL_PAGE,
    ("score_sheet.sheet_page", "GET"): ALL_PAGE,
    ("score_sheet.api_sheets", "GET"): ALL_PAGE,
    ("score_sheet.api_sheet", "GET"): ALL_PAGE,
    ("score_sheet.api_save_sheet", "POST"): ALL_PAGE,
    ("score_sheet.designer", "GET"): ALL_PAGE,
    ("score_sheet.designer_post", "POST"): ALL_PAGE,
    ("score_sheet.import_sheet", "POST"): ALL_PAGE,
    ("score_sheet.share", "GET"): ALL_PAGE,
    ("score_sheet.receive", "GET"): ALL_PAGE,
    ("score_sheet.receive_link", "GET"): ALL_PAGE,
    ("score_sheet.receive_save", "POST"): ALL_PAGE,
    # a saved sheet is changed or deleted only by the browser that saved it, a built-in one (asked
    # here) by nobody: not a table credential, so companion/games/score_sheet/tests/test_designer.py asks two browsers
    ("score_sheet.designer_edit", "GET"): set(),
    ("score_sheet.delete", "POST"): set(),
    # the table code alone: the read-only table
    ("pages.join", "GET"): ALL_PAGE,
    ("pages.table_view", "GET"): ALL_PAGE,
    ("pages.board_fragment", "GET"): ALL_PAGE,
    ("pages.poll", "GET"): ALL_PAGE,
    ("pages.live", "GET"): ALL_PAGE,  # like the poll: tells only that the table changed
    ("pages.table_history", "GET"): ALL_PAGE,
    ("pages.export_json", "GET"): ALL_PAGE,
    ("pages.export_csv", "GET"): ALL_PAGE,
    ("pizza_theory.replay", "GET"): ALL_PAGE,
    # DiceZ hides nothing: the coach reads any seat's sheet (when the table's coach option allows)
    ("dicez.review", "GET"): ALL_PAGE,
    ("dicez.coach_api", "GET"): ALL_PAGE,
    ("dicez.read_dice_photo", "POST"): ALL_PAGE,  # reads a photo, no table, records nothing (rate-limited)
    ("results.card_svg", "GET"): ALL_PAGE,  # a finished game's result, like its export
    ("results.card_png_file", "GET"): ALL_PAGE,
    # a player's record across games: names and scores, as on /history
    ("results.player", "GET"): ALL_PAGE,
    ("rules.rules_page", "GET"): ALL_PAGE,  # the games' rules texts
    # links that are their own credential (the join secret, a hand-over token)
    ("pages.invite", "GET"): ALL_PAGE,
    ("pages.take_over_page", "GET"): ALL_PAGE,
    ("pages.take_over", "POST"): ALL_PAGE,
    # the invitation
    ("pages.join_qr", "GET"): INVITED,
    ("pages.take_seat", "POST"): INVITED,
    # the seat's own phone
    ("pages.sheet", "GET"): {"player"},
    ("pages.sheet_fragment", "GET"): {"player"},
    ("pages.preview", "POST"): {"player"},
    ("pages.add_entry", "POST"): {"player"},
    ("pages.undo", "POST"): {"player"},
    ("dicez.sheet_panel", "GET"): {"player"},
    # the host
    ("pages.host", "GET"): {"host"},
    ("pages.toggle_pass_and_play", "POST"): {"host"},
    ("pages.renew_invitation", "POST"): {"host"},
    ("pages.confirm_move", "GET"): {"host"},
    ("pages.handover", "POST"): {"host"},
    ("pages.rematch", "POST"): {"host"},
    ("pizza_theory.host_cuts", "GET"): {"host"},
    ("dicez.host_progress", "GET"): {"host"},
    ("pizza_theory.host_cuts", "POST"): {"host"},
    ("score_sheet.host_end", "POST"): {"host"},
    # the JSON API
    ("api.create_table", "POST"): ALL_API,
    ("api.table_state", "GET"): ALL_API,
    ("api.entries", "GET"): ALL_API,
    ("api.player", "GET"): ALL_API,
    ("api.add_entry", "POST"): {"seat", "other"},  # each for its own seat; the host only at pass-and-play
    ("api.undo", "POST"): {"seat", "other"},
    ("api.rematch", "POST"): {"host"},
    ("api.handover", "POST"): {"host"},
}


@pytest.fixture
def app(tmp_path):
    app = create_app({"DATABASE_URL": f"sqlite:///{tmp_path / 'matrix.sqlite'}", "TESTING": True,
                      "SECRET_KEY": "test-secret", "RATELIMIT_ENABLED": False})
    yield app
    app.extensions["store"].dispose()


def _routes(app):
    for rule in app.url_map.iter_rules():
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            yield rule, method


def test_every_route_has_a_row_and_every_row_a_route(app):
    routes = {(rule.endpoint, method) for rule, method in _routes(app)}
    assert routes - MATRIX.keys() == set(), "add these routes to the authorisation matrix"
    assert MATRIX.keys() - routes == set(), "these rows name routes that no longer exist"


def _game_of(endpoint: str) -> str:
    prefix = endpoint.split(".")[0]
    return prefix if prefix in GAMES else next(iter(GAMES))


def _table_with_devices(app, game_id):
    """A table started on the start page, with a device for each page credential."""
    host = app.test_client()
    game = GAMES[game_id]
    names = {f"player{i}": f"P{i}" for i in range(max(2, game.min_players))}
    code = start_table_page(host, game=game_id, **names)
    devices = {"anyone": app.test_client(), "invited": app.test_client(), "player": app.test_client(),
               "other": app.test_client(), "host": host}
    from tests.helpers import _TABLES

    invite(devices["invited"], _TABLES[code])
    join_seat(devices["player"], code, 0)
    join_seat(devices["other"], code, 1)
    return code, devices


def _path(app, rule, code):
    store = app.extensions["store"]
    table = store.table(code) if code else None
    values = {"code": code, "seat": 0, "game_no": 1, "game_id": "dicez", "filename": "app.js", "name": "nobody's",
              "packed": "not-a-link", "sheet_id": "qwixx", "choice": "de",
              "secret": table.join_secret if table else None}
    if "token" in rule.arguments:
        values["token"] = store.create_handover(code, 0, minutes=5)[0]
    with app.test_request_context():
        from flask import url_for

        return url_for(rule.endpoint, **{k: v for k, v in values.items() if k in rule.arguments})


def _page_answer(app, rule, method, device, code):
    path = _path(app, rule, code)
    if method == "GET":
        return device.get(path).status_code
    csrf = csrf_from(device.get("/").get_data(as_text=True))
    return device.post(path, data={"csrf_token": csrf}).status_code


def _api_tokens(app, code, devices):
    table = app.extensions["store"].table(code)
    return {"none": None, "seat": table.seats[0].token, "other": table.seats[1].token, "host": table.host_token}


def _api_answer(app, rule, method, token, code):
    client = app.test_client()
    path = _path(app, rule, code)
    headers = bearer(token) if token else {}
    if method == "GET":
        return client.get(path, headers=headers).status_code
    # a body each route takes the shape of, so that what is judged is the credential
    body = {"kind": "nothing"} if rule.endpoint == "api.add_entry" else {}
    return client.post(path, json=body, headers=headers).status_code


@pytest.mark.parametrize("endpoint_method", sorted(MATRIX), ids=lambda em: f"{em[0]}-{em[1]}")
def test_who_may_use_each_route(app, endpoint_method):
    endpoint, method = endpoint_method
    rule = next(r for r, m in _routes(app) if (r.endpoint, m) == endpoint_method)
    code, devices = _table_with_devices(app, _game_of(endpoint))
    answers = {}
    if endpoint.startswith("api."):
        for name, token in _api_tokens(app, code, devices).items():
            answers[name] = _api_answer(app, rule, method, token, code)
    else:
        for name in PAGE:  # the host last: its answers may change the table (pass and play, rematch)
            answers[name] = _page_answer(app, rule, method, devices[name], code)
    assert all(status < 500 for status in answers.values()), answers
    allowed = {name for name, status in answers.items() if status not in (401, 403)}
    assert allowed == MATRIX[endpoint_method], answers
