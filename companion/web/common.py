"""Helpers shared by the HTML pages and the JSON API."""
from __future__ import annotations

from flask import abort, current_app, request, url_for

from ..storage import CODE_ALPHABET, CODE_LENGTH, Store, TableInfo
from ..tables import Replay


def store() -> Store:
    return current_app.extensions["store"]


def valid_code(code: str) -> str | None:
    """The table code in canonical form, or None if it cannot be one (checked before any query)."""
    code = code.strip().upper() if isinstance(code, str) else ""
    if len(code) == CODE_LENGTH and all(c in CODE_ALPHABET for c in code):
        return code
    return None


def get_table(code: str) -> TableInfo:
    canonical = valid_code(code)
    table = store().table(canonical) if canonical else None
    if table is None:
        abort(404, f"There is no table {code[:12]!s}." if code.isprintable() else "There is no such table.")
    return table


def absolute_url(path: str) -> str:
    """A full address for `path` that phones can open: PUBLIC_URL if set, else how this request came in."""
    base = current_app.config.get("PUBLIC_URL") or request.host_url
    return base.rstrip("/") + path


def join_url(code: str) -> str:
    return absolute_url(url_for("pages.join", code=code))


def players_summary(rep: Replay, table: TableInfo, view: dict) -> list[dict]:
    totals = rep.game.totals(rep.state)
    vplayers = view.get("players")
    if not isinstance(vplayers, list):
        vplayers = []
    out = []
    for s in table.seats:
        item = {"seat": s.seat, "name": s.name, "total": totals[s.seat]}
        if s.seat < len(vplayers) and isinstance(vplayers[s.seat], dict) and "sheet" in vplayers[s.seat]:
            item["sheet"] = vplayers[s.seat]["sheet"]
        out.append(item)
    return out
