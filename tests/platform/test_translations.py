"""English, German and French: every string a player reads comes from the catalogues.

- every template's text and labels are marked for translation, and every message the rules or the web
  layer raise is a catalogue template (no f-string);
- the catalogues hold every marked message, each with a German and a French translation that keeps
  its placeholders, and the compiled .mo files say what the .po files say;
- every page of every game (the accessibility test's list, mid-game and at the end), read in a
  pseudo-language whose every message is bracketed, shows no word outside a bracket but names, codes
  and numbers; read with Accept-Language de or fr, it shows no English sentence of the catalogue;
- the rules pages exist in German and French with every rule number of the English text.
"""
from __future__ import annotations

import ast
import random
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po
from babel.messages.catalog import Catalog

from companion.platform.web.i18n import ENDONYMS, LANGUAGES
from companion.platform.core.registry import GAMES
from companion.platform.web.rules_page import rules_document, rules_path
from tests.fixtures import served_app
from tests.contract.playout import playout
from tests.platform.test_accessibility_browser import END_PAGES, EXTRA_PAGES, GAME_PAGES, PLAIN_PAGES, TABLE_PAGES

ROOT = Path(__file__).resolve().parents[2]
CATALOGUES = ROOT / "companion" / "translations"
TRANSLATED = [lang for lang in LANGUAGES if lang != "en"]
PSEUDO = "eo"  # a language we do not ship: the test gives it a catalogue of bracketed messages
GAME_IDS = [gid for gid, game in GAMES.items() if game.web is not None]
PLAYERS = ("Ann", "Ben", "Cleo")
# words a page shows in every language: the games' and the app's names, the language switch
KEPT = {*(game.title for game in GAMES.values()), "Game companion", *ENDONYMS.values(), "BG Stats", "JSON", "CSV",
        "PIN", "QR", "OK", "Language · Sprache · Langue"}
LABEL_ATTRIBUTES = ("aria-label", "title", "alt", "placeholder")


# ---- finding the templates and what they show --------------------------------------------------------
def templates() -> list[Path]:
    found = [*ROOT.glob("templates/**/*.html"), *ROOT.glob("templates/**/*.svg"),
             *ROOT.glob("companion/**/templates/**/*.html"), *ROOT.glob("companion/**/templates/**/*.svg")]
    return sorted(found)


class Visible(HTMLParser):
    """The texts a reader meets in a piece of HTML: text nodes and the labels a screen reader says."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.texts: list[str] = []
        self.hidden_depth = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.hidden_depth += 1
        for name, value in attrs:
            if name in LABEL_ATTRIBUTES and value:
                self.texts.append(value)

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self.hidden_depth:
            self.hidden_depth -= 1

    def handle_data(self, data):
        if not self.hidden_depth and data.strip():
            self.texts.append(data)


def visible_texts(html: str) -> list[str]:
    parser = Visible()
    parser.feed(html)
    return parser.texts


def words_left(text: str, kept: set[str]) -> list[str]:
    """The words of `text` that are not names, codes, numbers or words every language keeps."""
    for word in sorted(kept, key=len, reverse=True):
        text = re.sub(r"(?<!\w)" + re.escape(word) + r"(?!\w)", " ", text)
    return [w for w in re.findall(r"[^\W\d_]{2,}", text) if not re.fullmatch(r"[A-Z]{1,3}", w)]


# ---- the marking of templates and Python -----------------------------------------------------------
ATTRIBUTE = re.compile(r"[\w-]+=[\"']")
JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)


@pytest.mark.parametrize("path", templates(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_text_of_a_template_is_marked_for_translation(path):
    source = JINJA.sub(" ", path.read_text(encoding="utf-8"))
    # what a block or a macro writes into a tag (class="tv", hx-post="...") is no text
    unmarked = [t.strip() for t in visible_texts(source) if words_left(t, KEPT) and not ATTRIBUTE.search(t)]
    assert not unmarked, f"{path.name}: text outside _() / ngettext(): {unmarked}"


MESSAGE_CALLS = {"RuleError": 0, "MalformedEntry": 0, "Text": 0, "SeatText": 0, "TableError": 1, "abort": 1}


def _unmarked_messages(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
        at = MESSAGE_CALLS.get(name)
        if at is None or len(node.args) <= at:
            continue
        message = node.args[at]
        if isinstance(message, (ast.JoinedStr, ast.BinOp)) or (
                isinstance(message, ast.Call) and getattr(message.func, "attr", None) == "format"):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_every_message_the_python_raises_is_a_catalogue_template():
    """A refusal or an error page's message is written once as a catalogue message with named values,
    never put together with an f-string (which the catalogues cannot hold)."""
    found = [where for path in sorted((ROOT / "companion").rglob("*.py")) for where in _unmarked_messages(path)]
    assert not found, "messages built from pieces: " + ", ".join(found)


MARKERS = {"RuleError", "MalformedEntry", "Text", "SeatText", "N_", "plural_text"}
WORDS = re.compile(r"[A-Za-z]{2,} [a-z]{2,}")


def _rules_modules() -> list[Path]:
    found = [*ROOT.glob("companion/games/*/rules.py"), *ROOT.glob("companion/games/*/rules/*.py")]
    # Score sheet's built-in sheets are the published games' own names and categories: data, not our words
    return sorted(p for p in found if p.name != "builtin.py")


def _text_of(node) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant))
    return None


def _excused(up) -> bool:
    """Whether a text within `up` needs no marking: a marked call, a data error for developers
    (BoardError, ValueError), or a constant the rules compare (TIE3 = "three-way tie")."""
    name = getattr(up, "func", None) and (getattr(up.func, "id", None) or getattr(up.func, "attr", None))
    if name in MARKERS or (name and name.endswith("Error")):
        return True
    targets = [e for t in getattr(up, "targets", ()) for e in (t.elts if isinstance(t, ast.Tuple) else [t])]
    return isinstance(up, ast.Assign) and all(isinstance(t, ast.Name) and t.id.isupper() for t in targets)


def _unmarked_words(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        text = _text_of(node)
        if text is None or not WORDS.search(text) or isinstance(parents.get(node), (ast.Expr, ast.JoinedStr)):
            continue  # no words, a docstring, or a part of an f-string (judged whole)
        up = parents.get(node)
        while up is not None and not isinstance(up, (ast.FunctionDef, ast.Module)) and not _excused(up):
            up = parents.get(up)
        if up is None or isinstance(up, (ast.FunctionDef, ast.Module)):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {text[:60]!r}")
    return found


def test_every_text_the_rules_write_is_marked_for_translation():
    """Rules are pure and know no language: every text of theirs a player may read is a catalogue
    message (Text, RuleError, N_), translated where it is shown."""
    found = [where for path in _rules_modules() for where in _unmarked_words(path)]
    assert not found, "texts of the rules outside Text()/RuleError()/N_():\n" + "\n".join(found)


# ---- the catalogues --------------------------------------------------------------------------------
def _catalogue(lang: str) -> Catalog:
    with open(CATALOGUES / lang / "LC_MESSAGES" / "messages.po", "rb") as f:
        return read_po(f, locale=lang)


def _template() -> Catalog:
    with open(CATALOGUES / "messages.pot", "rb") as f:
        return read_po(f)


def _ids(catalog: Catalog) -> set:
    return {m.id if isinstance(m.id, str) else tuple(m.id) for m in catalog if m.id}


def test_the_catalogue_template_holds_every_marked_message(tmp_path):
    """scripts/translations.sh was run after the last message was marked."""
    out = tmp_path / "now.pot"
    subprocess.run([str(Path(sys.executable).with_name("pybabel")), "-q", "extract", "-F", "babel.cfg", "--no-location",
                    "-k", "_", "-k", "gettext", "-k", "ngettext:1,2", "-k", "N_", "-k", "Text", "-k", "SeatText",
                    "-k", "RuleError", "-k", "MalformedEntry", "-k", "TableError:2", "-k", "abort:2", "-k", "t",
                    "-k", "plural_text:1,2", "-o", str(out), "."], cwd=ROOT, check=True, capture_output=True)
    with open(out, "rb") as f:
        now = _ids(read_po(f))
    missing = now - _ids(_template())
    assert not missing, f"run `bash scripts/translations.sh`: the catalogues lack {sorted(map(str, missing))[:10]}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_has_a_translation(lang):
    catalog = _catalogue(lang)
    template = _ids(_template())
    assert template <= _ids(catalog), f"{lang}: run `bash scripts/translations.sh`"
    untranslated = [m.id for m in catalog if m.id and (m.fuzzy or not all(m.string if isinstance(m.string, tuple)
                                                                         else [m.string]))]
    assert not untranslated, f"{lang}: {len(untranslated)} messages have no translation, e.g. {untranslated[:5]}"


PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]|\{(\w+)(?:![rsa])?(?::[^}]*)?\}")


def placeholders(text: str) -> set[str]:
    return {a or b for a, b in PLACEHOLDER.findall(text)}


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_translation_keeps_its_placeholders(lang):
    wrong = []
    for m in _catalogue(lang):
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, (tuple, list)) else (m.id,)
        strings = m.string if isinstance(m.string, (tuple, list)) else (m.string,)
        wanted = placeholders(ids[-1]) | placeholders(ids[0])
        for s in strings:
            # a plural's singular may say "one" for its count, as the English may
            if s and placeholders(s) - wanted or (s and not placeholders(s) >= wanted - {"num"}):
                wrong.append((m.id, s))
    assert not wrong, f"{lang}: placeholders differ in {wrong[:5]}"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_compiled_catalogues_say_what_the_po_files_say(lang):
    def key(m):
        return m.id if isinstance(m.id, str) else tuple(m.id)

    def string(m):
        return m.string if isinstance(m.string, str) else tuple(m.string)

    with open(CATALOGUES / lang / "LC_MESSAGES" / "messages.mo", "rb") as f:
        compiled = {key(m): string(m) for m in read_mo(f) if m.id}
    written = {key(m): string(m) for m in _catalogue(lang) if m.id and m.string}
    stale = [k for k, v in written.items() if compiled.get(k) != v]
    assert not stale, f"run `bash scripts/translations.sh compile`: {lang}'s .mo is older than its .po"


# ---- the rules pages -------------------------------------------------------------------------------
RULE_NUMBER = re.compile(r"\*\*([A-Z]{2}-\d+)\b")


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("gid", GAME_IDS)
def test_the_rules_are_translated_with_every_rule_number(gid, lang):
    english, translated = rules_path(gid, "en"), rules_path(gid, lang)
    assert translated.is_file() and translated != english, f"{gid} has no rules text in {lang}"
    numbers = RULE_NUMBER.findall(english.read_text(encoding="utf-8"))
    assert numbers and RULE_NUMBER.findall(translated.read_text(encoding="utf-8")) == numbers
    assert rules_document(gid, lang)[1] == rules_document(gid, "en")[1]


# ---- every page, read in each language ---------------------------------------------------------------
ACCENTED = str.maketrans("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
                         "åƀçďëƒĝĥïĵķĺṁňöṗʠŕşţüṽŵẋýžÅƁÇĎËƑĜĤÏĴĶĹṀŇÖṖꝖŔŞŢÜṼŴẊÝŽ")
KEPT_IN_MESSAGE = re.compile(r"(%\(\w+\)[sd]|\{[^{}]*\}|<[^>]*>|&\w+;)")


def pseudo(message: str) -> str:
    """A message in the pseudo-language: its words with accented letters (so an English word a page
    shows, even inside a message's value, is told apart), its placeholders and tags as they are."""
    return "".join(part if KEPT_IN_MESSAGE.fullmatch(part) else part.translate(ACCENTED)
                   for part in KEPT_IN_MESSAGE.split(message))


def _pseudo_catalogue(folder: Path) -> None:
    catalog = Catalog(locale=PSEUDO)
    for m in _template():
        if not m.id:
            continue
        if isinstance(m.id, (tuple, list)):
            catalog.add(m.id, tuple(pseudo(s) for s in m.id))
        else:
            catalog.add(m.id, pseudo(m.id))
    target = folder / PSEUDO / "LC_MESSAGES"
    target.mkdir(parents=True)
    with open(target / "messages.mo", "wb") as f:
        write_mo(f, catalog)


@pytest.fixture(scope="module")
def reader(tmp_path_factory):
    folder = tmp_path_factory.mktemp("i18n")
    _pseudo_catalogue(folder / "pseudo")
    app = served_app({"DATABASE_URL": f"sqlite:///{folder / 'pages.sqlite'}", "TESTING": True,
                      "SECRET_KEY": "test-secret", "TABLES_PER_CLIENT": "10000 per minute",
                      "LANGUAGES": (*LANGUAGES, PSEUDO),
                      "BABEL_TRANSLATION_DIRECTORIES": f"translations;{folder / 'pseudo'}"})
    yield app
    app.extensions["store"].dispose()


def _table(client, gid, steps):
    game = GAMES[gid]
    players = min(game.max_players, max(game.min_players, 3))
    resp = client.post("/api/tables", json={"game": gid, "players": list(PLAYERS[:players])})
    assert resp.status_code == 201, resp.get_json()
    table = resp.get_json()
    for step in steps:
        answer = client.post(f"/api/tables/{table['code']}/entries", json=step.entry,
                             headers={"Authorization": f"Bearer {table['seats'][step.seat]['token']}"})
        assert answer.status_code == 201, answer.get_json()
    return table


def _pages(client) -> list[tuple[str, str, dict]]:
    """(name, path, table) of every page of every game, as the accessibility test visits them."""
    pages = [(name, path, None) for name, path in PLAIN_PAGES]
    for gid in GAME_IDS:
        pages += [(f"{gid}-{name}", path.format(game=gid), None) for name, path in GAME_PAGES if name != "rules"]
        game = GAMES[gid]
        _, steps = playout(game, min(game.max_players, max(game.min_players, 3)), random.Random(f"i18n-{gid}"))
        tables = {"mid": _table(client, gid, steps[:len(steps) // 2]), "end": _table(client, gid, steps)}
        for stage, table in tables.items():
            for name, path in TABLE_PAGES + (END_PAGES if stage == "end" else []):
                pages.append((f"{gid}-{name}-{stage}", path.format(code=table["code"]), table))
        for name, path, stage in EXTRA_PAGES.get(gid, []):
            table = tables.get(stage)
            pages.append((f"{gid}-{name}", path.format(code=table["code"]) if table else path, table))
    return pages


@pytest.fixture(scope="module")
def pages(reader):
    return _pages(reader.test_client())


def _read(app, path, table, lang: str | None = None, accept: str | None = None) -> str:
    client = app.test_client()
    if table:
        code = table["code"]
        client.set_cookie(f"host_{code}", table["host_token"])
        client.set_cookie(f"seat_{code}", table["seats"][0]["token"])
    if lang:
        client.set_cookie("lang", lang)
    resp = client.get(path, headers={"Accept-Language": accept} if accept else {})
    assert resp.status_code == 200, f"{path} answered {resp.status_code}"
    return resp.get_data(as_text=True)


def _sheet_words() -> set[str]:
    """Score sheet's sheets are the published games' own (their names and the rows their scoring
    names), or a designer's: the words of a sheet are the sheet's, as it was written."""
    from companion.games.score_sheet.rules.builtin import BUILTIN
    words = set()
    for sheet in BUILTIN.values():
        words |= {sheet["name"], *(row["label"] for row in sheet["rows"]),
                  *(i["name"] for row in sheet["rows"] for i in row.get("inputs", ())),
                  *(row["expression"] for row in sheet["rows"] if "expression" in row)}
    return words


def test_every_page_shows_only_catalogue_messages(reader, pages):
    """Read in the pseudo-language, whatever a page shows that is not a catalogue message is a name,
    a code or a number: nothing is left in English by a template, the web layer or the rules."""
    unmarked = {}
    for name, path, table in pages:
        kept = KEPT | set(PLAYERS) | ({table["code"]} if table else set()) | _sheet_words()
        for text in visible_texts(_read(reader, path, table, lang=PSEUDO)):
            english = [w for w in words_left(text, kept) if w.isascii()]
            if english:
                unmarked.setdefault(name, []).append(f"{text.strip()[:80]} ({' '.join(english)})")
    assert not unmarked, "texts not from the catalogues:\n" + "\n".join(f"{k}: {v[:6]}" for k, v in unmarked.items())


def _english_sentences() -> dict[str, list[str]]:
    """Per language: the English wording of each of its translated messages, cut at its placeholders
    and tags into the pieces of three words or more a page would show as they are."""
    pieces = {}
    for lang in TRANSLATED:
        found = set()
        for m in _catalogue(lang):
            ids = m.id if isinstance(m.id, (tuple, list)) else (m.id,)
            strings = m.string if isinstance(m.string, (tuple, list)) else (m.string,)
            if not m.id or list(ids)[:len(strings)] == list(strings):
                continue
            for english in ids:
                for piece in re.split(r"%\(\w+\)s|\{\w+[^}]*\}|<[^>]+>", english):
                    if len(re.findall(r"[^\W\d_]{2,}", piece)) >= 3 and piece.strip() not in strings:
                        found.add(re.sub(r"\s+", " ", piece.strip()))
        pieces[lang] = sorted(found)
    return pieces


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_page_shows_an_english_sentence_to_a_german_or_french_reader(reader, pages, lang):
    english = _english_sentences()[lang]
    found = {}
    for name, path, table in pages:
        shown = " \n ".join(re.sub(r"\s+", " ", t) for t in visible_texts(_read(reader, path, table, accept=lang)))
        left = [piece for piece in english if piece in shown]
        if left:
            found[name] = left[:5]
    assert not found, f"English in the {lang} pages:\n" + "\n".join(f"{k}: {v}" for k, v in found.items())


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_rules_pages_read_in_the_readers_language(reader, lang):
    for gid in GAME_IDS:
        # code (an option's name, a data format) reads the same in every language
        english = re.sub(r"<code>.*?</code>", "", _read(reader, f"/rules/{gid}", None, accept="en"))
        page = re.sub(r"<code>.*?</code>", "", _read(reader, f"/rules/{gid}", None, accept=lang))
        assert f'<html lang="{lang}">' in page and page != english
        english_paragraphs = set(visible_texts(english)) - KEPT
        shown = set(visible_texts(page))
        # a sentence of four words or more (an option's name in code, five_of_a_kind_full_house, is no sentence)
        same = [t for t in english_paragraphs & shown if len(t.split()) >= 4]
        assert not same, f"/rules/{gid} in {lang} still shows {same[:3]}"


def test_a_refusal_reads_in_the_readers_language_with_its_rule_and_the_players_names(client):
    """DZ-20 out of turn, asked in German and in French: the rules' message, the seat named, the rule kept."""
    from tests.helpers import new_table, post_entry
    table = new_table(client, ["Ann", "Ben"])
    entry = {"kind": "score", "category": "chance", "dice": [1, 2, 3, 4, 5]}
    said = {}
    for lang in ("en", "de", "fr"):
        resp = client.post(f"/api/tables/{table['code']}/entries", json=entry,
                           headers={"Authorization": f"Bearer {table['seats'][1]['token']}", "Accept-Language": lang})
        assert resp.status_code == 422 and resp.get_json()["rule"] == "DZ-20"
        said[lang] = resp.get_json()["error"]
    assert said["en"] == "It is Ann's turn: turns go in seat order, so wait for Ann."
    assert said["de"] == "Ann ist dran: Es geht reihum nach Sitzplätzen, also warte auf Ann."
    assert said["fr"] == "C'est au tour de Ann : on joue dans l'ordre des places, attendez donc Ann."
    assert post_entry(client, table, 0, **entry).status_code == 201  # nothing was recorded by the refusals


def test_the_switch_remembers_a_choice_and_a_link_with_lang_gives_the_hosts_language(client):
    resp = client.get("/lang/fr", headers={"Referer": "http://localhost/history"})
    assert resp.status_code == 303 and resp.headers["Location"] == "/history"
    assert "<h1>Parties terminées" in client.get("/history", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert client.get("/lang/xx").status_code == 404
    other = client.application.test_client()  # the TV: the host's link carries the host's language
    assert '<html lang="de">' in other.get("/?lang=de").get_data(as_text=True)
    assert '<html lang="de">' in other.get("/").get_data(as_text=True)  # and it is remembered
