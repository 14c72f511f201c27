"""The games' rules as this app applies them (each game's rules.md), shown in the app: one page per game
with an anchor per numbered rule (/rules/<game>#<rule number>), and refusals that link to the rule they cite."""
from __future__ import annotations

import re
from functools import lru_cache

from flask import Blueprint, abort, render_template, url_for
from markdown_it import MarkdownIt
from markupsafe import Markup

from .i18n import current_language, localize
from ..core.registry import GAMES

RULE_ID = re.compile(r"\b([A-Z]{2}-\d+)\b")

rules = Blueprint("rules", __name__)


def _anchor_rules(state) -> None:
    """markdown-it core rule: a paragraph that opens with a bold rule number gets it as its id."""
    tokens = state.tokens
    for i, token in enumerate(tokens[:-1]):
        inline = tokens[i + 1]
        children = [c for c in inline.children or () if c.content or c.type != "text"]
        if token.type != "paragraph_open" or inline.type != "inline" or len(children) < 2:
            continue
        first, text = children[0], children[1]
        found = RULE_ID.match(text.content) if first.type == "strong_open" else None
        if found:
            token.attrSet("id", found.group(1))
            token.attrSet("class", "rule")


_MD = MarkdownIt("commonmark")
_MD.core.ruler.push("anchor_rules", _anchor_rules)


def rules_path(game_id: str, language: str = "en") -> Path:
    """The game's rules text in `language` (<name>.<language>.md beside the English <name>.md), or the
    English one where there is no translation."""
    english = GAMES[game_id].rules_path
    translated = english.with_suffix(f".{language}.md")
    return translated if language != "en" and translated.is_file() else english


@lru_cache(maxsize=None)
def rules_document(game_id: str, language: str = "en") -> tuple[Markup, frozenset[str]] | None:
    """The game's rules as HTML and the rule numbers it anchors; None if it has no rules text."""
    path = rules_path(game_id, language)
    if not path.is_file():
        return None
    tokens = _MD.parse(path.read_text(encoding="utf-8"))
    ids = frozenset(t.attrGet("id") for t in tokens if t.type == "paragraph_open" and t.attrGet("id"))
    return Markup(_MD.renderer.render(tokens, _MD.options, {})), ids


def cite_rules(reason: str, game_id: str, rule: str | None = None) -> Markup:
    """A refusal as the page shows it: the rule numbers it names become links to the rules page,
    and the rule it applies (when the rules said which) is linked after it."""
    document = rules_document(game_id) if game_id in GAMES else None
    known = document[1] if document else frozenset()
    reason = localize(reason)
    parts, last = [], 0
    for found in RULE_ID.finditer(reason):
        parts += [(reason[last:found.start()], None), (found.group(1), found.group(1) in known and found.group(1))]
        last = found.end()
    parts.append((reason[last:], None))
    cited = rule if rule in known and rule not in reason else None
    return Markup(render_template("_cite.html", parts=parts, game_id=game_id, rule=cited))


@rules.get("/rules/<game_id>")
def rules_page(game_id):
    document = rules_document(game_id, current_language()) if game_id in GAMES else None
    if document is None:
        abort(404, "There are no rules here by that name. The start page lists the games.")
    return render_template("rules.html", game=GAMES[game_id], body=document[0])
