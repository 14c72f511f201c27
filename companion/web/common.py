"""Helpers shared by the HTML pages and the JSON API."""
from __future__ import annotations

from flask import abort, current_app, request, url_for

from ..storage import Store, TableInfo
from ..tables import Replay


def store() -> Store:
    return current_app.extensions["store"]


def get_table(code: str) -> TableInfo:
    table = store().table(code.upper()) if isinstance(code, str) and len(code) <= 12 else None
    if table is None:
        abort(404, f"There is no table {code}.")
    return table


def join_url(code: str) -> str:
    base = current_app.config.get("PUBLIC_URL")
    path = url_for("pages.join", code=code)
    if base:
        return base.rstrip("/") + path
    return request.host_url.rstrip("/") + path


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
