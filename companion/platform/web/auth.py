"""Who may do what: seat, host and invitation cookies (HttpOnly), and CSRF checks.

A device is invited to a table when it opened the join link (the QR code) or typed the table's
PIN; only an invited device may take a free seat. A seat's token belongs to the one device that
claimed it; the host moves a seat to another device with a single-use hand-over link.
"""
from __future__ import annotations

import hashlib
import secrets

from flask import abort, after_this_request, current_app, g, request, session

from .hardening import secure_cookies
from ..core.records import TableInfo, fingerprint

COOKIE_AGE = 60 * 60 * 24 * 60  # a table's seats outlive a long game night


def seat_cookie(code: str) -> str:
    return f"seat_{code}"


def host_cookie(code: str) -> str:
    return f"host_{code}"


def invite_cookie(code: str) -> str:
    return f"invite_{code}"


def set_cookie(response, name: str, value: str, max_age: int = COOKIE_AGE) -> None:
    response.set_cookie(name, value, max_age=max_age, httponly=True, samesite="Lax",
                        secure=secure_cookies())


def same_secret(sent: str, kept: str) -> bool:
    """Is `sent` the secret `kept`, compared in constant time? Whatever a client sent (a cookie, a
    header, a path part) may hold any character, which `compare_digest` refuses on text: compare bytes."""
    return secrets.compare_digest(sent.encode("utf-8", "surrogatepass"), kept.encode("utf-8", "surrogatepass"))


def my_seat(table: TableInfo) -> int | None:
    token = request.cookies.get(seat_cookie(table.code))
    return seat_for_token(table, token)


def seat_for_token(table: TableInfo, token: str | None) -> int | None:
    if not token:
        return None
    for s in table.seats:
        if same_secret(token, s.token):
            return s.seat
    return None


def is_host(table: TableInfo) -> bool:
    token = request.cookies.get(host_cookie(table.code))
    return bool(token) and same_secret(token, table.host_token)


def has_invitation(table: TableInfo) -> bool:
    sent = request.cookies.get(invite_cookie(table.code))
    return bool(sent) and bool(table.join_secret) and same_secret(sent, table.join_secret)


def seat_cookie_token(table: TableInfo) -> str | None:
    return request.cookies.get(seat_cookie(table.code)) or None


def this_device(table: TableInfo, seat: int | None, host: bool) -> str | None:
    """The fingerprint of the token this browser writes with: its seat's, else the host's."""
    if seat is not None:
        return fingerprint(table.seats[seat].token)
    return fingerprint(table.host_token) if host else None


MOST_TABLES_REMEMBERED = 200  # more table cookies than a browser keeps for one site


def tables_of_this_browser() -> tuple[dict[str, str], dict[str, str]]:
    """(host tokens, seat tokens) by table code, as this browser's cookies hold them."""
    found: tuple[dict[str, str], dict[str, str]] = ({}, {})
    for name, value in list(request.cookies.items())[:MOST_TABLES_REMEMBERED * 2]:
        kind, _, code = name.partition("_")
        if kind in ("host", "seat") and value and len(value) <= 64:
            found[kind == "seat"][code] = value
    return found


def csrf_token() -> str:
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(16)  # 128 bits
    return session["csrf"]


def check_csrf():
    if request.method in ("GET", "HEAD", "OPTIONS") or request.path.startswith("/api/"):
        return None
    if current_app.config.get("CSRF_DISABLED"):
        return None
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token", "")
    expected = session.get("csrf")
    if not expected or not sent or not same_secret(sent, expected):
        abort(400, "This page has expired. Reload it and try again.")
    return None


# ---- this browser ---------------------------------------------------------------------------------
# A long-lived random identity of the browser itself (not of a seat), so that what it made can be
# recognised as its own later. Stores keep only a hash of the cookie, never the cookie itself.
BROWSER_COOKIE = "browser"
BROWSER_COOKIE_AGE = 60 * 60 * 24 * 400  # the longest a browser keeps a cookie


def _browser_cookie() -> str | None:
    token = request.cookies.get(BROWSER_COOKIE, "")
    return token if 32 <= len(token) <= 64 and token.isascii() else None


def _browser_mark(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _remember_browser(response):
    set_cookie(response, BROWSER_COOKIE, g.browser_token, BROWSER_COOKIE_AGE)
    return response


def browser_id() -> str:
    """This browser's mark as the owner of something it makes: a hash of its cookie, which is
    set (or renewed) on this response."""
    if "browser_token" not in g:
        g.browser_token = _browser_cookie() or secrets.token_urlsafe(32)
        after_this_request(_remember_browser)
    return _browser_mark(g.browser_token)


def is_this_browser(mark: str | None) -> bool:
    """Was `mark` (from browser_id()) made by this browser? Never sets a cookie."""
    token = g.get("browser_token") or _browser_cookie()
    return bool(mark and token) and same_secret(mark, _browser_mark(token))
