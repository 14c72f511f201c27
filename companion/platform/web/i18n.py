"""Languages: English, German and French, from the gettext catalogues in companion/translations.

Each browser reads its own language: the choice it made with the language switch (a cookie), else
the first of its Accept-Language that we have, else English. A table has none of its own: a link that
carries `?lang=xx` (the host screen's link to the table view carries the host's) reads in that
language and makes it the browser's choice.

Rules are pure and know no language: they write English catalogue messages (`contract.N_`, `Text`,
`RuleError`), and the text is translated here, where it is put on a page (`localize`; in templates
every printed Text is translated by the Jinja finalize hook).
"""
from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit

from babel.dates import format_datetime
from babel.numbers import format_decimal
from flask import Blueprint, Flask, abort, current_app, has_request_context, redirect, request
from flask.json.provider import DefaultJSONProvider
from flask_babel import Babel, get_locale, get_translations
from jinja2 import pass_context
from markupsafe import Markup

from ..core.contract import N_, Text

LANGUAGES = ("en", "de", "fr")
# each language named in itself, as the switch shows it (the same on every page)
ENDONYMS = {"en": "English", "de": "Deutsch", "fr": "Français"}
COOKIE = "lang"
YEAR = 365 * 24 * 3600

i18n = Blueprint("i18n", __name__)


def _languages() -> tuple[str, ...]:
    return tuple(current_app.config.get("LANGUAGES") or LANGUAGES)  # a test may add a language of its own


def _asked() -> str | None:
    chosen = request.args.get("lang")
    return chosen if chosen in _languages() else None


def select_locale() -> str:
    chosen = _asked() or request.cookies.get(COOKIE)
    if chosen in _languages():
        return chosen
    return request.accept_languages.best_match(LANGUAGES) or LANGUAGES[0]


def current_language() -> str:
    return str(get_locale() or LANGUAGES[0])


def translate(message: str) -> str:
    """A catalogue message in the reader's language (the message itself where it has no translation)."""
    return get_translations().ugettext(message) if message else message


def number(value) -> str:
    """A number as the reader's locale writes it (1.234,5 in German, 1 234,5 in French); English
    keeps the plain digits the rules write (1234.5)."""
    language = current_language()
    return str(value) if language == LANGUAGES[0] else format_decimal(value, locale=language)


def when(stamp) -> str:
    """A date and time as the reader's locale writes it (04.12.26, 18:14 / 04/12/2026 18:14); English
    keeps the plain 2026-12-04 18:14."""
    language = current_language()
    if language == LANGUAGES[0]:
        return stamp.strftime("%Y-%m-%d %H:%M")
    return format_datetime(stamp, format="short", locale=language)


def localize(value):
    """What a player reads, in their language: a Text translated with its values, a plain string
    looked up in the catalogues (a message marked where it was written), anything else as it is."""
    if isinstance(value, Text):
        return value.shown(translate, number)
    if isinstance(value, str):
        return translate(value)
    return value


def _shown_value(value):
    if isinstance(value, Text):
        return value.shown(translate, number)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return number(value)
    return value


@pass_context
def _gettext(context, message: str, **variables):
    """Templates' _() and gettext(): Jinja's own newstyle gettext, with each value in the reader's
    language too (a Text translated, a number written the locale's way)."""
    text = Markup(translate(message)) if context.eval_ctx.autoescape else translate(message)
    return text % {key: _shown_value(value) for key, value in variables.items()}


@pass_context
def _ngettext(context, singular: str, plural: str, num: int, **variables):
    found = get_translations().ungettext(singular, plural, num)
    text = Markup(found) if context.eval_ctx.autoescape else found
    return text % {key: _shown_value(value) for key, value in {"num": num, **variables}.items()}


def _localized(value):
    if isinstance(value, Text):
        return value.shown(translate, number)
    if isinstance(value, dict):
        return {_localized(key) if isinstance(key, Text) else key: _localized(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_localized(item) for item in value]
    return value


class TranslatingJSON(DefaultJSONProvider):
    """JSON answers (the API's refusals and the rules' words in its views) in the reader's language."""

    def dumps(self, obj, **kwargs) -> str:
        return super().dumps(_localized(obj) if has_request_context() else obj, **kwargs)


def _finalize(value):
    # every {{ value }} a template prints: a Text (a refusal, a label, a note of the rules) is translated
    return value.shown(translate, number) if isinstance(value, Text) else value


def _remember(choice: str, response):
    response.set_cookie(COOKIE, choice, max_age=YEAR, samesite="Lax", httponly=True,
                        secure=current_app.config.get("SESSION_COOKIE_SECURE", False))
    return response


def _remember_asked(response):
    choice = _asked()
    if choice and request.cookies.get(COOKIE) != choice:
        _remember(choice, response)
    response.vary.add("Accept-Language")
    return response


def _local(target: str | None) -> str:
    """`target` if it is a path of this site, else the start page."""
    parts = urlsplit(target or "")
    if not target or parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        return "/"
    return target


def _back() -> str:
    """Where the switch was tapped: its `next`, else the page that linked here (the pages send their
    address to their own site: Referrer-Policy same-origin), else the start page."""
    if "next" in request.args:
        return _local(request.args["next"])
    came_from = urlsplit(request.referrer or "")
    if came_from.netloc != request.host:
        return "/"
    return _local(came_from.path + (f"?{came_from.query}" if came_from.query else ""))


@i18n.get("/lang/<choice>")
def choose(choice):
    """The language switch: remember the choice in this browser and go back to the page."""
    if choice not in LANGUAGES:
        abort(404, N_("There is no such language here: English, Deutsch and Français are."))
    return _remember(choice, redirect(_back(), 303))


def switch_links() -> list[dict]:
    """The language switch's links: this page again in that language (`?lang=`, which the browser then
    remembers), or the start page from a page a form answered (its address takes no GET)."""
    return [{"code": code, "name": ENDONYMS[code], "current": code == current_language(),
             "url": f"?lang={code}" if request.method == "GET" else f"/lang/{code}?next=/"} for code in LANGUAGES]


SCRIPT_MESSAGE = re.compile(r'\bt\(\s*"((?:[^"\\]|\\.)*)"')


@lru_cache(maxsize=4)
def _script_messages(folders: tuple[str, ...]) -> tuple[str, ...]:
    """Every message the scripts ask t() for (the same the catalogues extract from them)."""
    found = set()
    for folder in folders:
        for path in Path(folder).rglob("*.js"):
            if not path.name.endswith(".min.js"):
                found |= {json.loads(f'"{m}"') for m in SCRIPT_MESSAGE.findall(path.read_text(encoding="utf-8"))}
    return tuple(sorted(found))


@lru_cache(maxsize=16)
def _script_translations(language: str, folders: tuple[str, ...]) -> str:
    found = {m: translate(m) for m in _script_messages(folders)}
    return json.dumps({m: t for m, t in found.items() if t != m}, ensure_ascii=False)


def script_messages() -> str:
    """The translations of the scripts' messages in the reader's language, as JSON for the page's
    #js-messages data-messages attribute (static/app.js's companionText reads it; the pages allow no
    inline script, so no <script type="application/json">)."""
    folders = (current_app.static_folder, *map(str, Path(current_app.root_path).glob("games/*/static")))
    return _script_translations(current_language(), folders)


def install(app: Flask) -> None:
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", "translations")
    Babel(app, locale_selector=select_locale)
    app.json = TranslatingJSON(app)
    app.jinja_env.finalize = _finalize
    app.jinja_env.newstyle_gettext = True  # as Flask-Babel installs them; ours translate the values too
    app.jinja_env.globals.update(_=_gettext, gettext=_gettext, ngettext=_ngettext)
    app.jinja_env.globals.update(current_language=current_language, language_links=switch_links,
                                 localize=localize, number=number, script_messages=script_messages, when=when)
    app.jinja_env.filters["localize"] = localize
    app.register_blueprint(i18n)
    app.after_request(_remember_asked)
