"""Dice and Slice through the HTML pages: plain POST flows, refusals in place, placement ghosts,
bonus dots, the end-of-game summary and the edition editor. Rules are cited as DS-n
(rules.md)."""
from __future__ import annotations

import re

import pytest
from html.parser import HTMLParser

from tests.helpers import csrf_from, join_seat, log, new_table, post_entry, start_table_page

from companion.games.dice_and_slice.rules import geometry as g

HTMX = {"HX-Request": "true"}
GAME = "dice_and_slice"


def edition_data(store, name):
    doc = store.document("dice_and_slice", "editions", name)
    return doc.data if doc else None


def edition_names(store):
    return [d.name for d in store.documents("dice_and_slice", "editions")]


def verdict(html: str) -> str:
    m = re.search(r'data-testid="verdict">\s*(.*?)\s*</p>', html, re.S)
    assert m, "no verdict on the page"
    return m.group(1)


def form(csrf, **fields):
    return {"csrf_token": csrf, **{k: str(v) for k, v in fields.items()}}


def start(client, players=("Ann", "Ben", "Cy"), options=None):
    table = new_table(client, list(players), game=GAME, options=options)
    csrf = join_seat(client, table["code"], 0)
    return table, csrf


def roll_and_choose(client, table, a=2, b=3, die="B", active=0):
    assert post_entry(client, table, active, kind="roll", faces={"A": a, "B": b}).status_code == 201
    assert post_entry(client, table, active, kind="choose", die=die).status_code == 201


def test_active_player_enters_the_roll_and_chooses_with_plain_posts(client):
    table, csrf = start(client)
    code = table["code"]
    page = client.get(f"/t/{code}/s/0").get_data(as_text=True)
    # DS-3: the active player taps both faces; each face is a picture of its dots
    assert 'data-testid="face-A-6"' in page and 'data-testid="face-B-1"' in page and "<svg class=\"ds-face\"" in page
    resp = client.post(f"/t/{code}/s/0/entries", data=form(csrf, action="roll", face_A=5, face_B=3))
    assert resp.status_code == 303
    resp = client.post(f"/t/{code}/s/0/entries", data=form(csrf, action="choose", die="A"))
    assert resp.status_code == 303
    assert [(e["kind"], e.get("faces") or e.get("die")) for e in log(client, code)] == [
        ("roll", {"A": 5, "B": 3}), ("choose", "A")]
    # DS-4: the others are told which die they must use, and who the active player is
    other = client.application.test_client()
    join_seat(other, code, 1)
    html = other.get(f"/t/{code}/s/1").get_data(as_text=True)
    assert 'data-testid="my-die">die B<' in html and "Ann chose die A" in html


def test_only_the_active_player_rolls_and_the_refusal_shows_in_place(client):
    table = new_table(client, ["Ann", "Ben"], game=GAME)
    code = table["code"]
    csrf = join_seat(client, code, 1)
    # DS-3 / DS-16: Ben is not the active player; nothing is saved and the reason shows in the fragment
    resp = client.post(f"/t/{code}/s/1/entries", data=form(csrf, action="roll", face_A=1, face_B=1), headers=HTMX)
    assert resp.status_code == 422
    html = resp.get_data(as_text=True)
    assert 'role="alert"' in html and "Only the active player" in html and 'id="sheet"' in html
    assert log(client, code) == []
    # a plain POST gets the whole page with the reason
    resp = client.post(f"/t/{code}/s/1/entries", data=form(csrf, action="roll", face_A=1))
    assert resp.status_code == 422 and "<html" in resp.get_data(as_text=True)
    assert log(client, code) == []


def test_ghost_preview_shows_new_dots_overlaps_and_why_a_position_is_not_legal(client):
    table, csrf = start(client)
    code = table["code"]
    roll_and_choose(client, table, a=2, b=3, die="B")  # Ann draws die B face 3: a 2 x 2 block
    frag = f"/t/{code}/s/0/sheet"
    html = client.get(frag + "?rot=0&tx=2&ty=0").get_data(as_text=True)
    # tapping dot (2,0) puts the block's middle (its top-left for a 2 x 2) there: (2,0)-(3,1), a 1-square slice (DS-10)
    assert verdict(html).startswith("Place here marks 4 new dots, and closes a 1-square slice")
    assert html.count('data-testid="ghost-new"') == 4 and 'id="ds-place"' in html
    assert 'name="dx" value="2"' in html and 'name="dy" value="0"' in html
    # an arrow step past the edge: DS-5, every dot must land on the sheet
    html = client.get(frag + "?rot=0&dx=0&dy=0&move=up").get_data(as_text=True)
    assert verdict(html).startswith("Off the sheet: 2 dots") and html.count('data-testid="ghost-off"') == 2
    assert re.search(r'id="ds-place"[^>]*disabled', html)
    # place it, then the same spot again: DS-6 needs at least one new dot
    client.post(f"/t/{code}/s/0/entries", data=form(csrf, action="place", rot=0, dx=2, dy=0))
    post_entry(client, table, 0, kind="skip_bonus")
    for seat in (1, 2):
        # the others place die A face 2 (two diagonal dots)
        post_entry(client, table, seat, kind="place", dots=[[0, 0], [2, 2]])
    roll_and_choose(client, table, a=2, b=3, die="A", active=1)  # turn 2: Ben takes A, Ann draws B (DS-4)
    html = client.get(frag + "?rot=0&dx=2&dy=0").get_data(as_text=True)
    assert 'data-testid="my-die">die B<' in html
    assert verdict(html).startswith("No new dot") and html.count('data-testid="ghost-overlap"') == 4
    assert re.search(r'id="ds-place"[^>]*disabled', html)
    html = client.get(frag + "?rot=0&dx=2&dy=0&move=right").get_data(as_text=True)
    assert verdict(html).startswith("Place here marks 2 new dots (2 more are already marked)")


def test_a_refused_placement_keeps_the_ghost_and_saves_nothing(client):
    table, csrf = start(client)
    code = table["code"]
    roll_and_choose(client, table)
    client.post(f"/t/{code}/s/0/entries", data=form(csrf, action="place", rot=0, dx=5, dy=5))
    before = log(client, code)
    # posting anyway (e.g. a stale page) from an off-sheet position: DS-5 refusal, in place
    resp = client.post(f"/t/{code}/s/0/entries", data=form(csrf, action="place", rot=0, dx=12, dy=0), headers=HTMX)
    assert resp.status_code == 422
    html = resp.get_data(as_text=True)
    assert 'role="alert"' in html
    assert log(client, code) == before


def test_rotate_turns_the_pattern_a_quarter_turn(client):
    table, csrf = start(client)
    roll_and_choose(client, table, a=3, b=1, die="A")  # die A face 3: three dots in a row
    frag = f"/t/{table['code']}/s/0/sheet"
    html = client.get(frag + "?rot=0&dx=5&dy=4&move=rotate").get_data(as_text=True)
    # DS-5: a quarter turn makes the row a column (x stays, y spans three dots)
    assert 'name="rot" value="1"' in html and "Turned a quarter turn clockwise" in verdict(html)
    dots = re.findall(r'<circle cx="([\d.]+)" cy="([\d.]+)" r="2.8" class="ds-ghost-new"', html)
    assert len({x for x, _ in dots}) == 1 and len({y for _, y in dots}) == 3


def test_bonus_dot_is_offered_placed_and_crosses_off_the_topping(client):
    table, csrf = start(client)
    code = table["code"]
    roll_and_choose(client, table, a=2, b=3, die="B")
    # DS-11: closing square (2,0), which carries a mushroom on side A, grants one bonus dot
    resp = client.post(f"/t/{code}/s/0/entries", data=form(csrf, action="place", rot=0, dx=2, dy=0))
    assert resp.status_code == 303
    html = client.get(f"/t/{code}/s/0").get_data(as_text=True)
    assert 'data-testid="place-bonus"' in html and 'data-testid="skip-bonus"' in html and "mushroom" in html
    assert 'class="ds-top pending"' in html
    # tapping a marked dot: refused in the preview with the reason (DS-11: an empty dot)
    html = client.get(f"/t/{code}/s/0/sheet?bx=2&by=0").get_data(as_text=True)
    assert "already marked" in verdict(html) and re.search(r'id="ds-bonus"[^>]*disabled', html)
    html = client.get(f"/t/{code}/s/0/sheet?bx=9&by=9&move=right").get_data(as_text=True)
    assert verdict(html).startswith("Place bonus dot marks the blue dot, on the bottom edge, 11th dot from the left")
    resp = client.post(f"/t/{code}/s/0/entries", data=form(csrf, action="bonus", bx=10, by=9), headers=HTMX)
    assert resp.status_code == 200
    entry = log(client, code)[-1]
    assert entry["kind"] == "bonus_dot" and entry["dot"] == [10, 9]
    html = resp.get_data(as_text=True)
    assert 'class="ds-top used"' in html and 'data-testid="place-bonus"' not in html


def test_skipping_the_bonus_dot_and_the_turn_closing_by_itself(client):
    table, csrf = start(client)
    code = table["code"]
    roll_and_choose(client, table, a=2, b=3, die="B")
    client.post(f"/t/{code}/s/0/entries", data=form(csrf, action="place", rot=0, dx=2, dy=0))
    client.post(f"/t/{code}/s/0/entries", data=form(csrf, action="skip_bonus"))
    html = client.get(f"/t/{code}/s/0").get_data(as_text=True)
    assert 'data-testid="progress-0" data-status="done"' in html
    assert 'data-testid="progress-1" data-status="to_place"' in html
    post_entry(client, table, 1, kind="place", dots=[[0, 0], [2, 2]])
    post_entry(client, table, 2, kind="place", dots=[[0, 0], [2, 2]])
    # DS-13: everyone has placed, so the turn ended and Ben (seat 2) is the next active player
    html = client.get(f"/t/{code}/s/0").get_data(as_text=True)
    assert "Turn 2" in html and "<strong>Ben</strong> is the active player" in html


def test_topping_bonus_strip_shows_who_scored(client):
    table, csrf = start(client, players=("Ann", "Ben"))
    code = table["code"]
    # mushroom (2,0) and olive (8,0) are on side A; a slice with exactly those two earns bonus 0 (DS-12)
    api_state = client.get(f"/api/tables/{code}").get_json()["view"]
    assert api_state["topping_bonuses"][0]["toppings"] == ["mushroom", "olive"]
    html = client.get(f"/t/{code}/view").get_data(as_text=True)
    assert html.count('data-status="open"') == 4


def play_to_end(client, table, players, send=None):
    """Drive a game to its end through the JSON API: each seat takes the placement with most new dots."""
    code = table["code"]
    post_entry = send or globals()["post_entry"]
    for _ in range(400):
        state = client.get(f"/api/tables/{code}").get_json()
        view = state["view"]
        if view["finished"]:
            return view
        if view["phase"] == "roll":
            assert post_entry(client, table, view["active"], kind="roll", faces={"A": 6, "B": 6}).status_code == 201
            continue
        if view["phase"] == "choose":
            assert post_entry(client, table, view["active"], kind="choose", die="A").status_code == 201
            continue
        for seat in view["waiting_for"]:
            p = view["players"][seat]
            if p["status"] == "bonus":
                post_entry(client, table, seat, kind="skip_bonus")
                continue
            face = view["rolled"][p["die"]]["dots"]
            options = g.legal_placements([tuple(d) for d in p["dots"]], [tuple(d) for d in face])
            best = max(options, key=lambda o: len(o["new"]))
            assert post_entry(client, table, seat, kind="place", dots=best["dots"]).status_code == 201
    raise AssertionError("the game did not end")


def test_end_of_game_summary_winners_and_rematch(client):
    table, csrf = start(client, players=("Ann", "Ben"))
    code = table["code"]
    view = play_to_end(client, table, 2)
    # DS-14 / DS-15: the engine ended the game; the summary lists slices per size, bonuses, totals
    html = client.get(f"/t/{code}/s/0").get_data(as_text=True)
    assert 'data-testid="game-over"' in html and "Final score" in html
    for i, p in enumerate(view["players"]):
        assert f'data-testid="final-{i}">' in html
        cell = re.search(rf'data-testid="final-{i}">(.*?)</td>', html).group(1)
        assert cell.endswith(str(p["total"]))
    for s in view["players"][0]["score"]["slices"]:
        assert f"{s['count']}×</span> <b>{s['points']}</b>" in html
    view_html = client.get(f"/t/{code}/view").get_data(as_text=True)
    assert 'data-testid="winners"' in view_html
    # the host (here: the API-created table has no host cookie) sees no rematch button; the host does
    assert 'data-testid="rematch"' not in html


def test_pass_and_play_host_plays_every_seat_from_one_device(client):
    csrf = csrf_from(client.get("/").get_data(as_text=True))
    resp = client.post("/tables", data={"game": GAME, "player0": "Ann", "player1": "Ben", "pass_and_play": "1",
                                        "dice_and_slice_edition": "default", "dice_and_slice_side": "B",
                                        "csrf_token": csrf})
    assert resp.status_code == 303
    code = resp.headers["Location"].split("/")[2]
    assert client.get(f"/api/tables/{code}").get_json()["view"]["side"] == "B"
    assert client.post(f"/t/{code}/s/0/entries", data=form(csrf, action="roll", face_A=1, face_B=1)).status_code == 303
    assert client.post(f"/t/{code}/s/0/entries", data=form(csrf, action="choose", die="A")).status_code == 303
    assert client.post(f"/t/{code}/s/0/entries", data=form(csrf, action="place", rot=0, dx=0, dy=0)).status_code == 303
    html = client.get(f"/t/{code}/s/0").get_data(as_text=True)
    assert "Pass the phone" in html and f'href="/t/{code}/s/1"' in html
    assert client.post(f"/t/{code}/s/1/entries", data=form(csrf, action="place", rot=0, dx=11, dy=9)).status_code == 303
    assert client.get(f"/api/tables/{code}").get_json()["view"]["turn"] == 2


# ---- edition editor ---------------------------------------------------------------------------
class _FormFields(HTMLParser):
    """What a browser would post for a page's forms: inputs (ticked checkboxes only) and textareas."""

    def __init__(self):
        super().__init__()
        self.data, self._textarea = {}, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "input" and a.get("name") and a.get("type") not in ("file", "submit"):
            if a.get("type") != "checkbox" or "checked" in a:
                self.data[a["name"]] = a.get("value") or ""
        elif tag == "textarea":
            self._textarea = a.get("name")
            self.data[self._textarea] = ""

    def handle_endtag(self, tag):
        if tag == "textarea":
            self._textarea = None

    def handle_data(self, text):
        if self._textarea:
            self.data[self._textarea] += text


def form_fields(html: str) -> dict:
    parser = _FormFields()
    parser.feed(html)
    return parser.data


def editor_form(client, path="/dice-and-slice/editions/new", **changes):
    """The editor's form as the page fills it (the default edition for a new one), with changes."""
    data = form_fields(client.get(path).get_data(as_text=True))
    data["label"] = data.get("label") or "Our copy"  # a new edition starts without a label
    data.update(changes)
    return data


def test_default_edition_page_says_it_is_the_projects_design(client):
    html = client.get("/dice-and-slice/editions/default").get_data(as_text=True)
    # DS-2: the default edition says plainly that it is the project's design and invites owners to edit
    assert 'data-testid="default-note"' in html and "project's default edition" in html
    assert "matches your box" in html and "disabled" in html


def test_edition_editor_refuses_mistakes_and_saves_nothing(client, store):
    data = editor_form(client, name="My box")
    for x in range(3):
        for y in range(3):
            data.pop(f"dieA_1_{x}_{y}", None)  # face 1 of die A left without dots
    resp = client.post("/dice-and-slice/editions", data=data)
    # DS-2: the refusal points at the mistake
    assert resp.status_code == 422
    assert "die A face 1 has no dots" in resp.get_data(as_text=True)
    assert store.document("dice_and_slice", "editions", "My box") is None
    stray = editor_form(client, name="My box", sqA_3_0="Z")  # a letter no topping has
    resp = client.post("/dice-and-slice/editions", data=stray)
    assert resp.status_code == 422 and "side A, row 1, square 4 holds the letter Z" in resp.get_data(as_text=True)
    # a topping that is on neither side cannot make a bonus (DS-2)
    unknown = editor_form(client, name="My box", top5_name="anchovy", top5_letter="Y", bonus0_t5="1")
    resp = client.post("/dice-and-slice/editions", data=unknown)
    assert resp.status_code == 422 and "asks for “anchovy”, which is on neither sheet side" in resp.get_data(as_text=True)
    twice = editor_form(client, name="My box", top1_letter="M")  # olive takes mushroom's letter
    resp = client.post("/dice-and-slice/editions", data=twice)
    assert resp.status_code == 422 and "both use the letter M" in resp.get_data(as_text=True)
    # the refused form comes back as it was posted: Z is still in its square
    assert 'name="sqA_3_0" value="Z"' in stray_page(client, stray)
    assert edition_names(store) == []


def stray_page(client, data):
    return client.post("/dice-and-slice/editions", data=data).get_data(as_text=True)


def test_saved_edition_can_be_chosen_for_a_new_table(client, store):
    data = editor_form(client, name="My box", label="My own box", points15="40")
    data["dieA_1_0_0"] = "1"  # face 1 of die A gets a second dot
    resp = client.post("/dice-and-slice/editions", data=data)
    assert resp.status_code == 303, resp.get_data(as_text=True)
    saved = edition_data(store, "My box")
    assert saved["slice_points"][14] == 40 and sorted(saved["dice"]["A"][0]) == [[0, 0], [1, 1]]
    assert "My box" in client.get("/dice-and-slice/editions").get_data(as_text=True)
    home = client.get("/").get_data(as_text=True)
    assert '<option value="My box"' in home
    csrf = csrf_from(home)
    resp = client.post("/tables", data={"game": GAME, "player0": "Ann", "dice_and_slice_edition": "My box",
                                        "dice_and_slice_side": "A", "csrf_token": csrf})
    assert resp.status_code == 303
    code = resp.headers["Location"].split("/")[2]
    view = client.get(f"/api/tables/{code}").get_json()["view"]
    assert view["edition"]["label"] == "My own box" and view["slice_points"]["15"] == 40
    # an edition name that does not exist is refused on the create form
    resp = client.post("/tables", data={"game": GAME, "player0": "Ann", "dice_and_slice_edition": "Nope",
                                        "csrf_token": csrf})
    assert resp.status_code == 422 and "no edition called" in resp.get_data(as_text=True)
    # editing it again keeps the name; the table's copy does not change (options are copied)
    data = editor_form(client, name="My box", original="My box", label="Changed")
    resp = client.post("/dice-and-slice/editions", data=data)
    assert resp.status_code == 303 and edition_data(store, "My box")["label"] == "Changed"
    assert client.get(f"/api/tables/{code}").get_json()["view"]["edition"]["label"] == "My own box"


def test_host_starts_a_rematch_from_the_final_summary(client):
    csrf = csrf_from(client.get("/").get_data(as_text=True))
    resp = client.post("/tables", data={"game": GAME, "player0": "Ann", "player1": "Ben", "pass_and_play": "1",
                                        "csrf_token": csrf})
    code = resp.headers["Location"].split("/")[2]
    host_token = client.get_cookie(f"host_{code}").value

    def send(_client, _table, seat, **entry):
        return client.post(f"/api/tables/{code}/entries", json={**entry, "seat": seat},
                           headers={"Authorization": f"Bearer {host_token}"})

    play_to_end(client, {"code": code}, 2, send=send)
    html = client.get(f"/t/{code}/s/1").get_data(as_text=True)
    assert 'data-testid="rematch"' in html  # DS-14: the game is over; the host may start the next one
    resp = client.post(f"/t/{code}/rematch", data={"csrf_token": csrf, "next": f"/t/{code}/s/1"})
    assert resp.status_code == 303 and resp.headers["Location"].endswith(f"/t/{code}/s/1")
    html = client.get(f"/t/{code}/s/1").get_data(as_text=True)
    assert "Turn 1" in html and 'data-testid="game-over"' not in html


def test_table_created_with_the_default_edition_keeps_it_when_the_default_changes(client, store, tmp_path,
                                                                                  monkeypatch):
    """DS-2: the table's options carry the default edition's data, so an edit of
    companion/games/dice_and_slice/rules/default_edition.json later changes neither its replays nor its history."""
    import json

    from companion.games.dice_and_slice.rules import edition as edition_module

    original = json.loads(edition_module.DEFAULT_PATH.read_text(encoding="utf-8"))
    code = start_table_page(client, game=GAME, player0="Ann", player1="Ben", dice_and_slice_edition="default",
                            dice_and_slice_side="A")
    assert store.table(code).options == {"edition": original, "side": "A", "edition_from_default": True,
                                         "first": 0}
    api_table = new_table(client, ["Cy"], game=GAME, options={"edition": "default"})
    assert store.table(api_table["code"]).options["edition"] == original

    changed = json.loads(json.dumps(original))
    changed["label"] = "Default edition, second printing"
    changed["slice_points"] = [p + 100 for p in changed["slice_points"]]
    (tmp_path / "default.json").write_text(json.dumps(changed))
    monkeypatch.setattr(edition_module, "DEFAULT_PATH", tmp_path / "default.json")
    edition_module.default_edition.cache_clear()
    try:
        table = {"code": api_table["code"], "seats": api_table["seats"]}
        assert post_entry(client, table, 0, kind="roll", faces={"A": 1, "B": 1}).status_code == 201  # a replay
        view = client.get(f"/api/tables/{api_table['code']}").get_json()["view"]
        assert view["edition"]["label"] == original["label"]
        assert view["slice_points"]["15"] == original["slice_points"][14]
        # the sheet still says the edition is the project's own design (the data carries its label)
        join_seat(client, code, 0)
        html = client.get(f"/t/{code}/s/0").get_data(as_text=True)
        assert "the project's own design; if your box differs" in html
        assert original["label"].replace("'", "&#39;") in html
    finally:
        monkeypatch.undo()
        edition_module.default_edition.cache_clear()


def test_saving_under_a_taken_name_is_refused_and_nothing_changes(client, store):
    """Saving never overwrites another edition: neither a new one under a taken name nor a rename
    onto a taken name; an `original` that does not exist deletes and saves nothing."""
    for name, label in (("One", "Box one"), ("Two", "Box two")):
        assert client.post("/dice-and-slice/editions", data=editor_form(client, name=name, label=label)).status_code == 303
    one, two = edition_data(store, "One"), edition_data(store, "Two")
    # a new edition under an existing name
    resp = client.post("/dice-and-slice/editions", data=editor_form(client, name="One", label="Clobber"))
    assert resp.status_code == 422 and "already an edition called &#39;One&#39;" in resp.get_data(as_text=True)
    # renaming Two onto One: refused, both kept as they were
    resp = client.post("/dice-and-slice/editions", data=editor_form(client, name="One", original="Two", label="Clobber"))
    html = resp.get_data(as_text=True)
    assert resp.status_code == 422 and "already an edition called &#39;One&#39;" in html
    assert 'name="original" value="Two"' in html  # the form still edits Two
    # an original that does not exist (or the read-only default) is refused; nothing saved or deleted
    for bogus in ("Nope", "default"):
        resp = client.post("/dice-and-slice/editions", data=editor_form(client, name="Three", original=bogus))
        assert resp.status_code == 422 and "no saved edition called" in resp.get_data(as_text=True)
    assert edition_data(store, "One") == one and edition_data(store, "Two") == two
    assert edition_names(store) == ["One", "Two"]
    # a real rename still works, and keeping the name still saves changes
    resp = client.post("/dice-and-slice/editions", data=editor_form(client, name="Three", original="Two", label="Box two"))
    assert resp.status_code == 303 and edition_names(store) == ["One", "Three"]
    resp = client.post("/dice-and-slice/editions", data=editor_form(client, name="One", original="One", label="Box 1"))
    assert resp.status_code == 303 and edition_data(store, "One")["label"] == "Box 1"


@pytest.mark.parametrize("name, said", [
    ("Blue\u202ebox", "An edition&#39;s name can only hold printable characters."),
    ("Blue\x07box", "An edition&#39;s name can only hold printable characters."),
    ("../boxes", "cannot hold &#34;/&#34;"),
    ("Blue/box", "cannot hold &#34;/&#34;"),
    ("Blue\\box", "cannot hold &#34;/&#34;"),
])
def test_an_edition_name_gets_the_checks_a_player_name_gets_and_is_never_a_path(client, store, name, said):
    resp = client.post("/dice-and-slice/editions", data=editor_form(client, name=name, label="Our box"))
    assert resp.status_code == 422 and said in resp.get_data(as_text=True)
    assert edition_names(store) == []


def test_a_new_edition_does_not_inherit_the_default_label_or_note(client, store):
    """DS-2: only the project's default edition says it is the project's design; a copy starts
    with an empty label and note, and a saved edition may not carry the default's label."""
    from companion.games.dice_and_slice.rules.edition import default_edition_data

    default = default_edition_data()
    html = client.get("/dice-and-slice/editions/new").get_data(as_text=True)
    assert re.search(r'<input name="label" value="" +placeholder="[^"]+"', html)
    assert re.search(r'<textarea name="note"[^>]*></textarea>', html)
    assert default["label"].replace("'", "&#39;") not in html
    assert default["note"][:40].replace("'", "&#39;") not in html
    # the default's label, even re-spaced or in other case, is refused; nothing is saved
    for label in (default["label"], "  " + default["label"].upper().replace(" ", "  ")):
        resp = client.post("/dice-and-slice/editions", data=editor_form(client, name="Mine", label=label))
        assert resp.status_code == 422 and "belongs to the project&#39;s default edition" in resp.get_data(as_text=True)
    assert edition_names(store) == []
    # an own label and no note is fine
    resp = client.post("/dice-and-slice/editions", data=editor_form(client, name="Mine", label="Our copy", note=""))
    assert resp.status_code == 303 and edition_data(store, "Mine")["label"] == "Our copy"
    assert edition_data(store, "Mine")["note"] == ""
    # a label left empty: the edition's name tells it apart
    resp = client.post("/dice-and-slice/editions", data=editor_form(client, name="Blue box", label=" "))
    assert resp.status_code == 303 and edition_data(store, "Blue box")["label"] == "Blue box"
    # copying a saved edition starts without its label too
    html = client.get("/dice-and-slice/editions/new?from=Mine").get_data(as_text=True)
    assert 'value="Mine (copy)"' in html and re.search(r'<input name="label" value="" ', html)


def test_every_dot_tap_is_also_reachable_with_the_arrow_pad():
    """The dots are smaller than 44 px on a phone (documented exception), so whatever a tap on a
    dot does, the ≥ 44 px turn button and arrows must reach too (DS-5: any quarter turn, any slide)."""
    from companion.games.dice_and_slice import web
    from companion.games.dice_and_slice.rules.hints import ghost_position

    assert "44 px" in web.__doc__ and "arrow pad" in web.__doc__
    plus_l = frozenset({(0, 0), (1, 0), (2, 0), (0, 1)})  # die B face 5 of the default edition
    start = ghost_position(plus_l, {}, [])
    for tx in range(g.DOT_W):
        for ty in range(g.DOT_H):
            for rot in range(4):
                want = ghost_position(plus_l, {"rot": str(rot), "tx": str(tx), "ty": str(ty)}, [])
                q, dx, dy = start
                for _ in range(4):  # turn until the pattern has the tapped turn
                    if q == want[0]:
                        break
                    q, dx, dy = ghost_position(plus_l, {"rot": q, "dx": dx, "dy": dy, "move": "rotate"}, [])
                for _ in range(30):  # then step towards the tapped place
                    move = ("left" if dx > want[1] else "right" if dx < want[1] else
                            "up" if dy > want[2] else "down" if dy < want[2] else None)
                    if move is None:
                        break
                    q, dx, dy = ghost_position(plus_l, {"rot": q, "dx": dx, "dy": dy, "move": move}, [])
                assert (q, dx, dy) == want, (tx, ty, rot)


def test_nonsense_in_the_address_or_the_form_is_answered_with_a_reason_never_a_crash(client):
    """DS-16: a hand-edited address shows a ghost anyway; a form without a position says what to do."""
    table, csrf = start(client)
    code = table["code"]
    roll_and_choose(client, table)
    for query in ("?rot=x&dx=&dy=zz", "?rot=1&tx=-40&ty=99999999999999999999", "?dx=" + "9" * 5000 + "&rot=0&dy=0",
                  "?bx=1&by=oops&move=sideways"):
        resp = client.get(f"/t/{code}/s/0/sheet{query}")
        assert resp.status_code == 200 and 'data-testid="ghost"' in resp.get_data(as_text=True)
    resp = client.post(f"/t/{code}/s/0/entries", data=form(csrf, action="place", rot="turn", dx=1, dy=1), headers=HTMX)
    assert resp.status_code == 422 and "Put the pattern on the sheet first" in resp.get_data(as_text=True)
    resp = client.post(f"/t/{code}/s/0/entries", data=form(csrf, action="bonus", bx=1, by=1), headers=HTMX)
    assert resp.status_code == 422 and "Place your die" in resp.get_data(as_text=True)  # the engine's reason
    assert [e["kind"] for e in log(client, code)] == ["roll", "choose"]


def test_the_blank_pad_starts_with_an_ordinary_die_and_posts_without_javascript(client, store):
    """A box is copied onto a blank pad whose dice show an ordinary die's 1 to 6 pips (many custom
    dice mostly follow it); posted as the plain form is, with one topping typed onto a square."""
    data = editor_form(client, "/dice-and-slice/editions/new?from=blank", name="Plain pad", label="",
                       top0_name="olive", top0_letter="O", sqA_3_4="o")
    data["dieB_6_1_0"] = "1"  # one dot more on die B's six
    assert client.post("/dice-and-slice/editions", data=data).status_code == 303
    saved = edition_data(store, "Plain pad")
    pips = {n: len(face) for n, face in enumerate(saved["dice"]["A"], 1)}
    assert pips == {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6}
    assert sorted(map(tuple, saved["dice"]["B"][5])) == [(0, 0), (0, 1), (0, 2), (1, 0), (2, 0), (2, 1), (2, 2)]
    assert saved["sides"]["A"]["rows"][4] == "...O........" and saved["label"] == "Plain pad"


def test_each_shape_button_draws_its_own_face_and_an_ordinary_die_needs_no_tap():
    """A face turned or slid is the same face (DS-5), so two shape buttons drawing one face would
    only make the owner hesitate; every face of the blank pad's ordinary die is one of the shapes
    (its button shows pressed)."""
    from itertools import combinations

    from companion.games.dice_and_slice.editor_form import FACE_SHAPES, ORDINARY_FACES
    from companion.games.dice_and_slice.rules.geometry import matches_face

    for (words_a, a), (words_b, b) in combinations(FACE_SHAPES, 2):
        assert not matches_face(frozenset(a), frozenset(b)), (words_a, words_b)
    assert all(0 <= x <= 2 and 0 <= y <= 2 for _, dots in FACE_SHAPES for x, y in dots)
    assert all(any(face == dots for _, dots in FACE_SHAPES) for face in ORDINARY_FACES)
