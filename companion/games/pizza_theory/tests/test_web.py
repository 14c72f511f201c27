"""Pizza Theory phone pages: plain POST flows, refusals, secrecy of pending cuts, the reveal checklist,
the host's cut entry, the neutral roll, the replay. Rule ids PT-n: rules.md."""
from __future__ import annotations

import difflib
import random
import re

from tests.helpers import bearer, csrf_from, join_seat, log, new_table, post_entry, start_table_page

from companion.games.pizza_theory import web as pt_web
from companion.games.pizza_theory.rules import apply, legal_spaces, neutral_spaces, new_state, resolution_view

HTMX = {"HX-Request": "true"}
GAME = "pizza_theory"


class Mirror:
    """The engine state next to the app's, to know what the app should show."""

    def __init__(self, players, options=None):
        self.state = new_state(players, options or {})

    def add(self, seat, entry):
        self.state = apply(self.state, seat, entry)


def place_all(client, table, mirror, rng):
    """Every seat adds one topping (the engine picks a legal space), plus the neutral roll for two."""
    st = mirror.state
    while st.phase == "add":
        seat = st.order[st.turn]
        entry = {"kind": "place", "space": list(rng.choice(legal_spaces(st, seat)))}
        assert post_entry(client, table, seat, **entry).status_code == 201
        mirror.add(seat, entry)
        st = mirror.state
    if st.phase == "neutral":
        line = rng.randint(1, 6)
        room = neutral_spaces(st, line)
        entry = {"kind": "neutral", "line": line, "space": list(room[0]) if room and st.supply[2] else None}
        assert post_entry(client, table, st.order[0], **entry).status_code == 201
        mirror.add(st.order[0], entry)


def cut_all(client, table, mirror, lines):
    for seat, line in enumerate(lines):
        assert post_entry(client, table, seat, kind="cut", line=line).status_code == 201
        mirror.add(seat, {"kind": "cut", "line": line})


def changes_in(html):
    """(space, from, to) of every checklist item a page shows."""
    return [(s, f, t or None) for s, f, t in
            re.findall(r'data-testid="change" data-space="([^"]+)" data-from="(\w+)" data-to="(\w*)"', html)]


def expected_changes(state):
    res = resolution_view(state.last)
    return [(",".join(map(str, c["space"])), c["from"], c["to"]) for c in res["changes"]]



def hosted_table_with_phones(client, app):
    """The host (`client`) starts a 3-player table on the start page; each seat joins from its own phone.
    Returns (code, the host's CSRF token, [(phone, its CSRF token)] by seat)."""
    code = start_table_page(client, game=GAME, player0="Ann", player1="Ben", player2="Cy")
    csrf = csrf_from(client.get("/").get_data(as_text=True))
    phones = []
    for seat in range(3):
        ph = app.test_client()
        phones.append((ph, join_seat(ph, code, seat)))
    return code, csrf, phones


def place_until_the_cuts(code, phones, mirror, rng):
    """Each phone in turn taps a legal space (plain POST) until the round reaches its cuts."""
    while mirror.state.phase == "add":
        seat = mirror.state.order[mirror.state.turn]
        space = rng.choice(legal_spaces(mirror.state, seat))
        ph, tok = phones[seat]
        r = ph.post(f"/t/{code}/s/{seat}/entries", data={"kind": "place", "space": ",".join(map(str, space)),
                                                        "csrf_token": tok})
        assert r.status_code == 303
        mirror.add(seat, {"kind": "place", "space": list(space)})

def test_the_turn_player_taps_a_space_with_a_plain_post(client):
    table = new_table(client, ("Ann", "Ben", "Cy"), game=GAME)
    code = table["code"]
    csrf = join_seat(client, code, 0)
    page = client.get(f"/t/{code}/s/0").get_data(as_text=True)
    # PT-5: the legal spaces are highlighted, and every space is a button in the place form
    assert 'data-testid="space-0,0,0"' in page
    assert re.search(r'class="pt-space legal"[^>]*value="0,0,0"|value="0,0,0" class="pt-space legal"', page)
    assert page.count('name="space"') == 37 and 'name="kind" value="place"' in page
    resp = client.post(f"/t/{code}/s/0/entries", data={"kind": "place", "space": "0,0,0", "csrf_token": csrf})
    assert resp.status_code == 303 and resp.headers["Location"].endswith(f"/t/{code}/s/0")
    assert log(client, code)[-1] == {**log(client, code)[-1], "kind": "place", "space": [0, 0, 0], "seat": 0}
    # PT-6: the next player in turn order now adds; Ann's page says so and has no place buttons
    page = client.get(f"/t/{code}/s/0").get_data(as_text=True)
    assert "Ben is adding a topping" in page and 'name="space"' not in page
    assert 'data-topping="0,0,0:red"' in page


def test_an_illegal_space_is_refused_in_place_and_saves_nothing(client):
    table = new_table(client, ("Ann", "Ben", "Cy"), game=GAME)
    code = table["code"]
    csrf = join_seat(client, code, 0)
    # PT-5: [0, 3, -3] touches Ann's own start topping on [1, 2, -3]
    resp = client.post(f"/t/{code}/s/0/entries", data={"kind": "place", "space": "0,3,-3", "csrf_token": csrf},
                       headers=HTMX)
    html = resp.get_data(as_text=True)
    assert resp.status_code == 422 and 'role="alert"' in html and "touches one of your own" in html
    assert 'id="sheet"' in html and "<html" not in html
    # PT-19: an occupied space, in a plain POST: the whole page with the reason
    resp = client.post(f"/t/{code}/s/0/entries", data={"kind": "place", "space": "3,-2,-1", "csrf_token": csrf})
    assert resp.status_code == 422 and "already holds a white topping" in resp.get_data(as_text=True)
    assert "<html" in resp.get_data(as_text=True)
    # PT-19: not a space at all
    resp = client.post(f"/t/{code}/s/0/entries", data={"kind": "place", "space": "9,9,9", "csrf_token": csrf})
    assert resp.status_code == 422 and "Tap a space on the pizza" in resp.get_data(as_text=True)
    assert log(client, code) == []


def test_out_of_turn_placement_is_refused(client):
    table = new_table(client, ("Ann", "Ben", "Cy"), game=GAME)
    code = table["code"]
    csrf = join_seat(client, code, 1)
    # PT-6: Ann (1st) adds first
    resp = client.post(f"/t/{code}/s/1/entries", data={"kind": "place", "space": "0,0,0", "csrf_token": csrf})
    assert resp.status_code == 422 and "red&#39;s turn" in resp.get_data(as_text=True)
    assert log(client, code) == []


def _table_at_cut(client, lines_before=None):
    table = new_table(client, ("Ann", "Ben", "Cy"), game=GAME)
    mirror = Mirror(3)
    place_all(client, table, mirror, random.Random(7))
    return table, mirror


def _strip(html, code):
    html = html.replace(code, "CODE")
    html = re.sub(r'name="csrf_token" value="[^"]+"', "", html)
    html = re.sub(r'"X-CSRF-Token": "[^"]+"', "", html)
    html = re.sub(r'name="key" value="[^"]+"', "", html)  # a fresh idempotency key per render
    html = re.sub(r"PIN \d{6}", "PIN N", html)
    html = re.sub(r'data-version="[\d.]+"', 'data-version="N"', html)  # the version the page shows
    return re.sub(r'v=[\d.]+', "v=N", html)


def test_a_pending_cut_is_in_no_other_page_nor_api_answer(client, app):
    # PT-8: two tables identical but for Ann's pending cut: Ben's page, the table view and the API
    # answers for Ben are the same whatever Ann chose.
    seen = []
    for line in (2, 5):
        other = app.test_client()
        table, mirror = _table_at_cut(other)
        code = table["code"]
        csrf = join_seat(other, code, 0)
        resp = other.post(f"/t/{code}/s/0/entries", data={"kind": "cut", "line": str(line), "csrf_token": csrf})
        assert resp.status_code == 303
        mine = other.get(f"/t/{code}/s/0").get_data(as_text=True)
        assert f"Your cut: line {line}" in mine and 'aria-pressed="true" data-testid="line-%d"' % line in mine
        ben = app.test_client()
        join_seat(ben, code, 1)
        pages = [ben.get(f"/t/{code}/s/1").get_data(as_text=True), ben.get(f"/t/{code}/s/1/sheet").get_data(as_text=True),
                 ben.get(f"/t/{code}/view").get_data(as_text=True), ben.get(f"/t/{code}/board").get_data(as_text=True)]
        assert all("aria-pressed=\"true\"" not in p for p in pages)
        api_state = ben.get(f"/api/tables/{code}", headers=bearer(table["seats"][1]["token"])).get_json()
        api_log = ben.get(f"/api/tables/{code}/entries", headers=bearer(table["seats"][1]["token"])).get_json()
        public_log = ben.get(f"/api/tables/{code}/entries").get_json()
        assert api_state["view"]["my_cut"] is None and api_state["view"]["seats"][0]["has_chosen"]
        assert api_log["entries"][-1] == {**api_log["entries"][-1], "kind": "cut", "hidden": True}
        assert "line" not in api_log["entries"][-1] and "line" not in public_log["entries"][-1]
        assert "chosen" in pages[0] and "choosing" in pages[0]
        for key in ("code",):
            api_state.pop(key)
        api_log.pop("code")
        for e in api_log["entries"]:
            e.pop("time")
        seen.append(([_strip(p, code) for p in pages], api_state["view"], api_log["entries"]))
    for a, b in zip(seen[0][0], seen[1][0]):
        assert a == b, "\n".join(list(difflib.unified_diff(a.splitlines(), b.splitlines(), lineterm=""))[:30])
    assert seen[0] == seen[1]


def test_the_reveal_lists_exactly_the_engine_changes(client):
    table, mirror = _table_at_cut(client)
    code = table["code"]
    cut_all(client, table, mirror, [1, 1, 5])
    assert mirror.state.round == 2
    expected = expected_changes(mirror.state)
    assert expected, "this position and cut make changes"
    # PT-12: every change of the resolution is listed, on the table view and on every phone
    view = client.get(f"/t/{code}/view").get_data(as_text=True)
    assert changes_in(view) == expected
    for seat in range(3):
        phone = client.application.test_client()
        join_seat(phone, code, seat)
        html = phone.get(f"/t/{code}/s/{seat}").get_data(as_text=True)
        assert changes_in(html) == expected
        # PT-7: after the reveal every cut is shown, with the line as its cutter numbered it
        for colour, line in zip(("red", "white", "green"), (1, 1, 5)):
            assert re.search(rf'data-testid="cut-{colour}">.*?line {line}</span>', html)
        assert f'data-testid="count-red">{mirror.state.masks[0].bit_count()}<' in html
        assert f'data-testid="supply-white">{mirror.state.supply[1]}<' in html
        # PT-13: the board turned: Ben is 1st in round 2
        assert 'data-cut="' in html
    assert "Ben is now 1st" in html
    # the changes are ticked on the board with checkboxes (client-side only)
    assert view.count('type="checkbox" data-tick=') == len(expected)


def test_resolution_shows_nothing_to_do_when_nothing_changes(client):
    table = new_table(client, ("Ann", "Ben", "Cy"), game=GAME)
    mirror = Mirror(3)
    rng = random.Random(1)
    for _ in range(30):
        place_all(client, table, mirror, rng)
        lines = [rng.randint(1, 6) for _ in range(3)]
        cut_all(client, table, mirror, lines)
        if not expected_changes(mirror.state) or mirror.state.phase == "over":
            break
    html = client.get(f"/t/{table['code']}/view").get_data(as_text=True)
    assert changes_in(html) == expected_changes(mirror.state)
    if not expected_changes(mirror.state):
        assert 'data-testid="no-changes"' in html


def test_host_enters_everyones_revealed_dice(client, app):
    code, csrf, phones = hosted_table_with_phones(client, app)
    assert client.get(f"/t/{code}/host").status_code == 200
    mirror = Mirror(3)
    place_until_the_cuts(code, phones, mirror, random.Random(3))
    # Cy chose on her phone; the host enters the dice of the two others
    ph, tok = phones[2]
    ph.post(f"/t/{code}/s/2/entries", data={"kind": "cut", "line": "6", "csrf_token": tok})
    mirror.add(2, {"kind": "cut", "line": 6})
    page = client.get(f"/t/{code}/pizza/cuts").get_data(as_text=True)
    assert 'name="line0"' in page and 'name="line1"' in page and 'name="line2"' not in page
    assert "Already chosen" in page
    # a phone that is not the host may not use this page, and its table view does not offer it
    assert phones[0][0].get(f"/t/{code}/pizza/cuts").status_code == 403
    for path in (f"/t/{code}/view", f"/t/{code}/board"):
        assert "/pizza/cuts" not in phones[0][0].get(path).get_data(as_text=True)
        assert "/pizza/cuts" not in app.test_client().get(path).get_data(as_text=True)  # a bare TV
        assert f'href="/t/{code}/pizza/cuts"' in client.get(path).get_data(as_text=True)  # the host
    # a missing line is refused and saves nothing
    resp = client.post(f"/t/{code}/pizza/cuts", data={"line0": "2", "csrf_token": csrf})
    assert resp.status_code == 422 and "Ben" in resp.get_data(as_text=True)
    assert [e["kind"] for e in log(client, code)].count("cut") == 1
    resp = client.post(f"/t/{code}/pizza/cuts", data={"line0": "2", "line1": "5", "csrf_token": csrf})
    assert resp.status_code == 303
    mirror.add(0, {"kind": "cut", "line": 2})
    mirror.add(1, {"kind": "cut", "line": 5})
    assert changes_in(client.get(f"/t/{code}/view").get_data(as_text=True)) == expected_changes(mirror.state)


def test_two_players_first_player_enters_the_neutral_roll(client):
    table = new_table(client, ("Ann", "Ben"), game=GAME)
    code = table["code"]
    csrf = join_seat(client, code, 0)
    mirror = Mirror(2)
    for seat, space in ((0, [0, 0, 0]), (1, [1, -1, 0])):
        assert post_entry(client, table, seat, kind="place", space=space).status_code == 201
        mirror.add(seat, {"kind": "place", "space": space})
    page = client.get(f"/t/{code}/s/0").get_data(as_text=True)
    assert "Roll the neutral die" in page and 'data-testid="nline-3"' in page
    # PT-15: after the line, the spaces beside it are offered (a plain GET keeps the choice)
    page = client.get(f"/t/{code}/s/0?nline=3").get_data(as_text=True)
    room = [",".join(map(str, s)) for s in neutral_spaces(mirror.state, 3)]
    assert room and all(f'data-testid="space-{v}"' in page for v in room)
    assert page.count('name="space"') == len(room)
    # PT-15: a space away from that line is refused with its reason
    far = next(",".join(map(str, s)) for s in legal_spaces(mirror.state, 0)
               if ",".join(map(str, s)) not in room)
    resp = client.post(f"/t/{code}/s/0/entries", data={"kind": "neutral", "nline": "3", "space": far,
                                                      "csrf_token": csrf})
    assert resp.status_code == 422 and "does not touch neutral line 3" in resp.get_data(as_text=True)
    resp = client.post(f"/t/{code}/s/0/entries", data={"kind": "neutral", "nline": "3", "space": room[0],
                                                      "csrf_token": csrf})
    assert resp.status_code == 303
    mirror.add(0, {"kind": "neutral", "line": 3, "space": [int(v) for v in room[0].split(",")]})
    # Ben does not roll: only the first player this round (PT-15)
    ben = client.application.test_client()
    btok = join_seat(ben, code, 1)
    assert "Your cut" in ben.get(f"/t/{code}/s/1").get_data(as_text=True)
    cut_all(client, table, mirror, [1, 1])
    html = client.get(f"/t/{code}/view").get_data(as_text=True)
    assert changes_in(html) == expected_changes(mirror.state)
    # the table view's round table: the neutral die cut line 3
    assert 'data-testid="round-line-green">3</td>' in html and "Neutral die" in html
    assert expected_changes(mirror.state), "this cut makes changes"
    # PT-14: round 2, Ben is first and rolls
    assert "Ben adds a topping" in html
    assert btok


def test_a_neutral_line_off_the_die_is_refused_with_the_rules_reason(client):
    # PT-15 / PT-19: the neutral die shows 1..6; anything else in the address says why and changes nothing
    table = new_table(client, ("Ann", "Ben"), game=GAME)
    code = table["code"]
    join_seat(client, code, 0)
    for seat, space in ((0, [0, 0, 0]), (1, [1, -1, 0])):
        assert post_entry(client, table, seat, kind="place", space=space).status_code == 201
    for nline, reason in (("9", "There is no line 9; lines are numbered 1 to 6."),
                          ("two", "The line must be a whole number from 1 to 6.")):
        resp = client.get(f"/t/{code}/s/0?nline={nline}")
        html = resp.get_data(as_text=True)
        assert resp.status_code == 200 and reason in html and 'data-testid="error"' in html
        assert 'name="space"' not in html and 'aria-pressed="true"' not in html
    assert len(log(client, code)) == 2


def test_pass_and_play_device_opens_every_seat(client):
    csrf = csrf_from(client.get("/").get_data(as_text=True))
    resp = client.post("/tables", data={"game": GAME, "player0": "Ann", "player1": "Ben", "player2": "Cy",
                                        "pass_and_play": "1", "csrf_token": csrf})
    code = resp.headers["Location"].split("/")[2]
    mirror = Mirror(3)
    rng = random.Random(5)
    while mirror.state.phase == "add":
        seat = mirror.state.order[mirror.state.turn]
        space = rng.choice(legal_spaces(mirror.state, seat))
        r = client.post(f"/t/{code}/s/{seat}/entries", data={"kind": "place", "space": ",".join(map(str, space)),
                                                            "csrf_token": csrf})
        assert r.status_code == 303
        mirror.add(seat, {"kind": "place", "space": list(space)})
    # PT-8 on a shared tablet: the chosen line is not shown to whoever picks the tablet up next, anywhere in
    # the page (board, legend, buttons, labels): Ann's page is the same whichever line she chose
    pages = []
    for line in ("3", "4"):  # she may still change it: nobody else has chosen
        client.post(f"/t/{code}/s/0/entries", data={"kind": "cut", "line": line, "csrf_token": csrf})
        page = client.get(f"/t/{code}/s/0").get_data(as_text=True)
        assert "You have chosen" in page and f"Your cut: line {line}" not in page and 'class="seat-tabs"' in page
        assert_no_trace_of_a_pending_line(page)
        pages.append(_strip(page, code))
    assert pages[0] == pages[1], "\n".join(difflib.unified_diff(pages[0].splitlines(), pages[1].splitlines(),
                                                               lineterm=""))
    for seat, line in ((1, 2), (2, 6)):
        client.post(f"/t/{code}/s/{seat}/entries", data={"kind": "cut", "line": str(line), "csrf_token": csrf})
    assert mirror.state.round == 1
    mirror.add(0, {"kind": "cut", "line": 4})
    mirror.add(1, {"kind": "cut", "line": 2})
    mirror.add(2, {"kind": "cut", "line": 6})
    assert changes_in(client.get(f"/t/{code}/s/2").get_data(as_text=True)) == expected_changes(mirror.state)


def assert_no_trace_of_a_pending_line(page):
    """No chosen line on the board (thick line, marked number), no pressed or marked line button."""
    assert not re.search(r'class="[^"]*\bchosen\b', page), re.search(r'<[^>]*class="[^"]*\bchosen\b[^>]*>', page)
    assert 'aria-pressed="true"' not in page and "Your cut: line" not in page
    assert page.count('class="pt-line mine"') == 6 and page.count('class="pt-line-btn"') == 6


def test_switching_pass_and_play_on_mid_round_does_not_show_the_host_a_pending_cut(client, app):
    # PT-8: one phone per player; Ann chooses on her phone; then the host turns pass-and-play on and opens
    # Ann's page on the host's device: nothing says which line Ann chose
    code, csrf, phones = hosted_table_with_phones(client, app)
    mirror = Mirror(3)
    place_until_the_cuts(code, phones, mirror, random.Random(5))
    ann, ann_tok = phones[0]
    seen = []
    for line in ("2", "5"):
        assert ann.post(f"/t/{code}/s/0/entries", data={"kind": "cut", "line": line,
                                                         "csrf_token": ann_tok}).status_code == 303
        if not seen:
            # Ann's own phone shows her choice while the table is one phone per player
            own = ann.get(f"/t/{code}/s/0").get_data(as_text=True)
            assert f"Your cut: line {line}" in own and re.search(r'class="pt-line mine chosen"', own)
            assert client.get(f"/t/{code}/s/0").status_code == 403  # not pass-and-play yet
            r = client.post(f"/t/{code}/host/pass-and-play", data={"on": "1", "csrf_token": csrf})
            assert r.status_code == 303
        page = client.get(f"/t/{code}/s/0").get_data(as_text=True)
        assert "You have chosen" in page
        assert_no_trace_of_a_pending_line(page)
        seen.append(_strip(page, code))
    assert seen[0] == seen[1], "\n".join(difflib.unified_diff(seen[0].splitlines(), seen[1].splitlines(),
                                                             lineterm=""))


def test_a_whole_game_ends_with_a_winner_rematch_and_a_replay_of_every_round(client):
    csrf = csrf_from(client.get("/").get_data(as_text=True))
    resp = client.post("/tables", data={"game": GAME, "player0": "Ann", "player1": "Ben", "player2": "Cy",
                                        "pass_and_play": "1", "csrf_token": csrf})
    code = resp.headers["Location"].split("/")[2]
    mirror = Mirror(3)
    rng = random.Random(11)
    resolved = []
    for _ in range(200):
        st = mirror.state
        if st.phase == "over":
            break
        if st.phase == "add":
            seat = st.order[st.turn]
            space = rng.choice(legal_spaces(st, seat))
            data = {"kind": "place", "space": ",".join(map(str, space))}
            entry = {"kind": "place", "space": list(space)}
        else:
            seat = st.cuts.index(None)
            line = rng.randint(1, 6)
            data, entry = {"kind": "cut", "line": str(line)}, {"kind": "cut", "line": line}
        assert client.post(f"/t/{code}/s/{seat}/entries", data={**data, "csrf_token": csrf}).status_code == 303
        mirror.add(seat, entry)
        if mirror.state.last is not st.last:
            resolved.append(expected_changes(mirror.state))
    st = mirror.state
    assert st.phase == "over"
    page = client.get(f"/t/{code}/s/0").get_data(as_text=True)
    names = ["Ann", "Ben", "Cy"]
    # PT-16: the winner (or the shared win) is called
    won = " and ".join(names[w] for w in st.winners)
    assert f"Game over. {won} {'win' if len(st.winners) > 1 else 'wins'} with 16." in page  # all 16 down
    assert 'data-testid="rematch"' in page and "Final count" in page
    # the replay steps through every round, showing that round's changes
    for r, expected in enumerate(resolved, 1):
        html = client.get(f"/t/{code}/pizza/replay?round={r}").get_data(as_text=True)
        assert f"Round {r} of {len(resolved)}" in html
        assert changes_in(html) == expected
    assert 'data-testid="replay-result"' in html
    # the host starts a rematch from the phone
    resp = client.post(f"/t/{code}/rematch", data={"csrf_token": csrf, "next": f"/t/{code}/s/0"})
    assert resp.status_code == 303 and resp.headers["Location"].endswith(f"/t/{code}/s/0")
    assert "Round 1" in client.get(f"/t/{code}/s/0").get_data(as_text=True)
    # the earlier game's replay is still there
    assert client.get(f"/t/{code}/pizza/replay?game=1&round=1").status_code == 200


def test_replay_of_an_unknown_game_or_table_is_404(client):
    table = new_table(client, ("Ann", "Ben", "Cy"), game=GAME)
    assert client.get(f"/t/{table['code']}/pizza/replay?game=5").status_code == 404
    assert "No round has been resolved" in client.get(f"/t/{table['code']}/pizza/replay").get_data(as_text=True)
    dz = new_table(client)
    assert client.get(f"/t/{dz['code']}/pizza/replay").status_code == 404


def test_each_phone_draws_its_own_lines_1_to_6_left_to_right_at_the_bottom(client, app):
    # PT-4 / PT-13: every phone puts its own corner at the bottom, so its lines 1..6 read left to right
    # as on the real board in front of that player; after the board turns the drawing turns too.
    table, mirror = _table_at_cut(client)
    code = table["code"]
    phones = [app.test_client() for _ in range(3)]
    for seat, phone in enumerate(phones):
        join_seat(phone, code, seat)
    for rnd in (1, 2):
        for seat, phone in enumerate(phones):
            html = phone.get(f"/t/{code}/s/{seat}").get_data(as_text=True)
            nums = re.findall(r'<text x="([-\d.]+)" y="([-\d.]+)" class="pt-num[^"]* mine[^"]*"[^>]*>(\d)</text>', html)
            assert sorted(int(n) for _, _, n in nums) == [1, 2, 3, 4, 5, 6]
            xs = [float(x) for x, _, n in sorted(nums, key=lambda t: int(t[2]))]
            assert xs == sorted(xs) and all(float(y) > 0 for _, y, _ in nums)
            me = mirror.state.order.index(seat) + 1
            assert f"you play <b>{['1st', '2nd', '3rd'][me - 1]}</b>" in html
        if rnd == 1:
            cut_all(client, table, mirror, [1, 1, 5])
            place_all(client, table, mirror, random.Random(9))


def test_a_double_tap_places_one_topping(client):
    table = new_table(client, ("Ann", "Ben", "Cy"), game=GAME)
    code = table["code"]
    csrf = join_seat(client, code, 0)
    form = {"kind": "place", "space": "0,0,0", "csrf_token": csrf, "key": "tap-1"}
    assert client.post(f"/t/{code}/s/0/entries", data=form).status_code == 303
    assert client.post(f"/t/{code}/s/0/entries", data=form).status_code == 303
    assert len(log(client, code)) == 1


def _button_positions(html):
    """(top %, left %) of every space button, in the order they are in the page (the Tab order)."""
    return [(float(t), float(lf)) for lf, t in
            re.findall(r'class="pt-space[^"]*" style="left:([-\d.]+)%;top:([-\d.]+)%', html)]


def test_tab_walks_the_spaces_as_drawn_for_the_viewer(client, app):
    # each player in turn (each at their own corner) has the space buttons in drawn order: top row
    # first, left to right (test_drawing checks the drawing itself)
    table = new_table(client, ("Ann", "Ben", "Cy"), game=GAME)
    code = table["code"]
    mirror = Mirror(3)
    rng = random.Random(4)
    phones = [app.test_client() for _ in range(3)]
    for seat, ph in enumerate(phones):
        join_seat(ph, code, seat)
    orders = set()
    while mirror.state.phase == "add":
        seat = mirror.state.order[mirror.state.turn]
        html = phones[seat].get(f"/t/{code}/s/{seat}").get_data(as_text=True)
        pos = _button_positions(html)
        assert len(pos) == 37 and pos == sorted(pos), seat
        orders.add(tuple(re.findall(r'data-testid="space-([-\d,]+)"', html)))
        entry = {"kind": "place", "space": list(rng.choice(legal_spaces(mirror.state, seat)))}
        assert post_entry(client, table, seat, **entry).status_code == 201
        mirror.add(seat, entry)
    assert len(orders) == 3  # three corners, three different orders


def _masks(picture):
    """A drawn hexagon (rows of 4-5-6-7-6-5-4 cells, R/W/G or .) -> colour masks."""
    from companion.games.pizza_theory.rules import BOARD
    rows = [r.split() for r in picture.strip("\n").splitlines() if r.strip()]
    masks = [0, 0, 0]
    for z, row in zip(range(-3, 4), rows):
        for x, cell in zip(range(max(-3, -3 - z), 4), row):
            if cell != ".":
                masks["RWG".index(cell)] |= 1 << BOARD.index[(x, -x - z, z)]
    return tuple(masks)


def test_a_shortfall_names_the_leading_colour(app):
    # PT-12: red would reach 20, so four of its replacements cannot be made; the checklist says which
    # colour led the slice and ran out, by name and letter
    from dataclasses import replace

    from flask import render_template

    from companion.games.pizza_theory.web import reveal
    masks = _masks("""
   . R R .
  . R R R .
 . R R W W .
. R R R W . .
 . R R R G G
  . . . . .
   R R . .""")
    st = replace(new_state(3, {}), masks=masks, supply=tuple(16 - m.bit_count() for m in masks), phase="cut")
    for seat in range(3):
        st = apply(st, seat, {"kind": "cut", "line": 1})
    rv = reveal(resolution_view(st.last), ["Ann", "Ben", "Cy"], 0, you=True)
    short = [c for c in rv["checklist"] if c["kind"] == "supply_out"]
    assert len(short) == 4
    for c in short:
        assert "red (R) has the most here but no red topping left" in c["why"], c["why"]
        assert "leading colour" not in c["why"]
    with app.test_request_context():
        html = render_template("pizza_theory/_reveal.html", rv=rv, ck="t", drawn_pizza=pt_web._pizzas.draw)
    assert html.count("red (R) has the most here but no red topping left") == 4


def _reveal_tag(html, testid):
    m = re.search(rf'<details[^>]*data-testid="{testid}"[^>]*>', html)
    return m and m.group(0)


def test_the_last_reveal_stays_open_until_the_next_rounds_cuts(client, app):
    # PT-12: the last round's changes stay on display while the next round's toppings go down (people
    # may still be copying them onto the real board), open over the board on the phones of the players
    # whose topping is still to come (whoever must act, or has acted, gets the board first, the changes
    # folded under it); they fold everywhere once the round reaches its cuts
    table, mirror = _table_at_cut(client)
    code = table["code"]
    phones = [app.test_client() for _ in range(3)]
    for seat, ph in enumerate(phones):
        join_seat(ph, code, seat)
    cut_all(client, table, mirror, [1, 1, 5])
    assert expected_changes(mirror.state)
    rng = random.Random(8)
    while True:
        for seat, ph in enumerate(phones):
            tag = _reveal_tag(ph.get(f"/t/{code}/s/{seat}").get_data(as_text=True), "reveal")
            still_to_come = mirror.state.order.index(seat) > mirror.state.turn
            assert tag and (" open" in tag) == still_to_come, (mirror.state.phase, seat)
        tag = _reveal_tag(client.get(f"/t/{code}/view").get_data(as_text=True), "table-reveal")
        assert tag and " open" in tag
        if mirror.state.phase != "add":
            break
        seat = mirror.state.order[mirror.state.turn]  # one topping at a time: still open after each
        entry = {"kind": "place", "space": list(rng.choice(legal_spaces(mirror.state, seat)))}
        assert post_entry(client, table, seat, **entry).status_code == 201
        mirror.add(seat, entry)
        if mirror.state.phase == "cut":
            break
    assert mirror.state.phase == "cut"
    for seat, ph in enumerate(phones):
        html = ph.get(f"/t/{code}/s/{seat}").get_data(as_text=True)
        tag = _reveal_tag(html, "reveal")
        assert tag and " open" not in tag and "Round 1: cuts and changes" in html
        assert changes_in(html) == expected_changes(mirror.state)  # folded, still there
    tag = _reveal_tag(client.get(f"/t/{code}/view").get_data(as_text=True), "table-reveal")
    assert tag and " open" not in tag


def test_the_start_page_chooses_the_first_player(client):  # PT-3: a starting player, at random or chosen
    csrf = csrf_from(client.get("/").get_data(as_text=True))
    names = {"player0": "Ann", "player1": "Ben", "player2": "Cy"}
    resp = client.post("/tables", data={"game": GAME, **names, "pizza_theory_first": "2", "csrf_token": csrf})
    code = resp.headers["Location"].split("/")[2]
    view = client.get(f"/api/tables/{code}").get_json()["view"]
    assert view["turn_order"][0] == 2 and view["to_place"] == 2
    firsts = set()
    for _ in range(30):
        resp = client.post("/tables", data={"game": GAME, **names, "pizza_theory_first": "random", "csrf_token": csrf})
        code = resp.headers["Location"].split("/")[2]
        firsts.add(client.get(f"/api/tables/{code}").get_json()["view"]["turn_order"][0])
    assert firsts == {0, 1, 2}  # at random: every seat comes up (30 draws miss one with p < 1e-5)
    resp = client.post("/tables", data={"game": GAME, "player0": "Ann", "player1": "Ben",
                                        "pizza_theory_first": "2", "csrf_token": csrf})
    assert resp.status_code == 422 and "no seat 3" in resp.get_data(as_text=True)


def test_a_phone_that_takes_a_seat_over_mid_round_does_not_see_the_cut_chosen_before(client, app):
    # PT-8: a cut is shown only on the device that chose it; the host moves Ann's seat to a new phone
    # after she chose: the new phone is Ann's sheet but says nothing of her line until the reveal
    code, csrf, phones = hosted_table_with_phones(client, app)
    mirror = Mirror(3)
    place_until_the_cuts(code, phones, mirror, random.Random(11))
    ann, ann_tok = phones[0]
    assert ann.post(f"/t/{code}/s/0/entries", data={"kind": "cut", "line": "4", "csrf_token": ann_tok}).status_code == 303
    mirror.add(0, {"kind": "cut", "line": 4})
    assert "Your cut: line 4" in ann.get(f"/t/{code}/s/0").get_data(as_text=True)
    new_phone = app.test_client()
    join_seat(new_phone, code, 0)
    page = new_phone.get(f"/t/{code}/s/0").get_data(as_text=True)
    assert "You have chosen" in page
    assert_no_trace_of_a_pending_line(page)
    assert_no_trace_of_a_pending_line(new_phone.get(f"/t/{code}/s/0/sheet").get_data(as_text=True))
    assert ann.get(f"/t/{code}/s/0").status_code == 410  # Ann's old phone is told the seat moved
    # once every cut is in, the reveal shows Ann's line on her new phone like everywhere else
    for seat, line in ((1, 2), (2, 6)):
        ph, tok = phones[seat]
        assert ph.post(f"/t/{code}/s/{seat}/entries", data={"kind": "cut", "line": str(line),
                                                           "csrf_token": tok}).status_code == 303
    assert re.search(r'data-testid="cut-red">.*?line 4</span>', new_phone.get(f"/t/{code}/s/0").get_data(as_text=True))


def test_a_second_phone_at_a_pass_and_play_table_does_not_read_the_cut_the_host_entered(client, app):
    # PT-8 at pass-and-play: the host's device enters Ann's cut; a phone that then takes Ann's seat, and
    # the seat's own API client, read the table as a shared device does: chosen, not which line
    table = new_table(client, ("Ann", "Ben", "Cy"), game=GAME, pass_and_play=True)
    code, mirror = table["code"], Mirror(3)
    place_all(client, table, mirror, random.Random(3))
    resp = client.post(f"/api/tables/{code}/entries", json={"kind": "cut", "line": 3, "seat": 0},
                       headers=bearer(table["host_token"]))
    assert resp.status_code == 201
    api_client_token = table["seats"][0]["token"]
    for token in (api_client_token, None):
        state = client.get(f"/api/tables/{code}", headers=bearer(token) if token else {}).get_json()
        entries = client.get(f"/api/tables/{code}/entries", headers=bearer(token) if token else {}).get_json()
        assert state["view"]["my_cut"] is None and state["view"]["seats"][0]["has_chosen"]
        assert entries["entries"][-1]["hidden"] is True and "line" not in entries["entries"][-1]
    phone = app.test_client()
    join_seat(phone, code, 0)
    mine = table["seats"][0]["token"]  # the phone's own token now
    assert mine != api_client_token
    state = phone.get(f"/api/tables/{code}", headers=bearer(mine)).get_json()
    assert state["view"]["my_cut"] is None
    assert phone.get(f"/api/tables/{code}/entries", headers=bearer(mine)).get_json()["entries"][-1]["hidden"] is True
    assert_no_trace_of_a_pending_line(phone.get(f"/t/{code}/s/0").get_data(as_text=True))
