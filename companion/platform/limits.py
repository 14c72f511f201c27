"""Rate limits that make guessing hopeless (Flask-Limiter; in memory, or Redis when REDIS_URL is set).

Only failures count, so a table at play never meets a limit: a lookup that finds nothing (any 404:
a wrong table code, join link or hand-over link) and a wrong PIN. docs/reliability.md works out
what the limits leave a guesser.
"""
from __future__ import annotations

import functools
import math
import time

from flask import Flask, request
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

from .context import valid_code

# per client, over every route: what a person mistyping a code never reaches
NOT_FOUND_PER_CLIENT = "30 per minute;300 per hour"
PIN_TRIES_PER_CLIENT = "5 per minute;30 per hour"
# per table, whoever tries: a PIN cannot be guessed by many clients sharing the work
PIN_TRIES_PER_TABLE = "30 per hour"
PIN_ENDPOINT = "pages.join_with_pin"


def _not_found(response) -> bool:
    return response.status_code == 404


def _wrong_pin(response) -> bool:
    return response.status_code == 403


def _table_of_pin_form() -> str:
    return "pin:" + (valid_code(request.form.get("code", "")) or "?")


def install_limits(app: Flask) -> Limiter:
    """Attach this app's own limiter (each app counts on its own, as each test app must)."""
    # no X-RateLimit-* headers on every answer (about 100 bytes each, and a phone never meets a limit):
    # only a refused request says when to try again (retry_after_header)
    app.config.setdefault("RATELIMIT_HEADERS_ENABLED", False)
    # if Redis cannot be reached, count in this process rather than refuse every request
    app.config.setdefault("RATELIMIT_IN_MEMORY_FALLBACK_ENABLED", True)
    limiter = Limiter(get_remote_address, app=app, application_limits=[NOT_FOUND_PER_CLIENT],
                      application_limits_deduct_when=_not_found)
    view = _own_copy(app.view_functions[PIN_ENDPOINT])
    view = limiter.limit(PIN_TRIES_PER_CLIENT, deduct_when=_wrong_pin)(view)
    view = limiter.limit(PIN_TRIES_PER_TABLE, key_func=_table_of_pin_form, deduct_when=_wrong_pin)(view)
    app.view_functions[PIN_ENDPOINT] = view
    app.extensions["companion_limiter"] = limiter
    app.after_request(functools.partial(retry_after_header, limiter))
    return limiter


def retry_after_header(limiter: Limiter, response):
    """after_request: a 429 says in how many seconds the limit it met opens again."""
    if response.status_code == 429 and "Retry-After" not in response.headers:
        met = limiter.current_limit
        wait = math.ceil(met.reset_at - time.time()) if met else 60
        response.headers["Retry-After"] = str(max(1, wait))
    return response


def _own_copy(view):
    """A view function of this app's own: Flask-Limiter marks what it decorates, and the module's
    function is shared by every app made in this process (the tests make many)."""
    @functools.wraps(view)
    def copy(*args, **kwargs):
        return view(*args, **kwargs)
    return copy
