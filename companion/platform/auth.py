"""Who may do what: seat and host tokens in HttpOnly cookies, and CSRF checks."""
from __future__ import annotations

import secrets

from flask import abort, current_app, request, session

from .hardening import secure_cookies
from .storage import TableInfo

COOKIE_AGE = 60 * 60 * 24 * 60  # a table's seats outlive a long game night


def seat_cookie(code: str) -> str:
    return f"seat_{code}"


def host_cookie(code: str) -> str:
    return f"host_{code}"


def set_cookie(response, name: str, value: str) -> None:
    response.set_cookie(name, value, max_age=COOKIE_AGE, httponly=True, samesite="Lax",
                        secure=secure_cookies())


def my_seat(table: TableInfo) -> int | None:
    token = request.cookies.get(seat_cookie(table.code))
    return seat_for_token(table, token)


def seat_for_token(table: TableInfo, token: str | None) -> int | None:
    if not token:
        return None
    for s in table.seats:
        if secrets.compare_digest(s.token, token):
            return s.seat
    return None


def is_host(table: TableInfo) -> bool:
    token = request.cookies.get(host_cookie(table.code))
    return bool(token) and secrets.compare_digest(token, table.host_token)


def csrf_token() -> str:
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(24)
    return session["csrf"]


def check_csrf():
    if request.method in ("GET", "HEAD", "OPTIONS") or request.path.startswith("/api/"):
        return None
    if current_app.config.get("CSRF_DISABLED"):
        return None
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token", "")
    expected = session.get("csrf")
    if not expected or not sent or not secrets.compare_digest(sent, expected):
        abort(400, "This page has expired. Reload it and try again.")
    return None
