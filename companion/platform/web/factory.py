"""The app factory: configuration, storage, the platform's blueprints and the games it is handed."""
from __future__ import annotations

import os
import secrets
from collections.abc import Iterable
from pathlib import Path

from flask import Flask, jsonify, render_template, request
from htmx_flask import Htmx
from jinja2 import ChoiceLoader, FileSystemLoader, PrefixLoader
from flask_limiter.errors import RateLimitExceeded
from werkzeug.exceptions import HTTPException

from . import auth, faults, hardening, i18n
from .i18n import localize
from .api import api
from .bundles import page_bundles
from .context import load_table_context
from ..live import updates as live
from .limits import install_limits
from .pages import pages
from ..core.contract import Game
from ..core.registry import register
from .results import results
from .rules_page import rules
from ..store.storage import Store
from .wire import install_wire
from ..core.contract import Text

ROOT = Path(__file__).resolve().parents[3]


def _secret_key(instance: Path) -> str:
    # Kept in the instance folder so every process and every restart signs cookies alike.
    path = instance / "secret_key"
    if not path.exists():
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(secrets.token_hex(32))
        try:
            os.link(tmp, path)  # atomic: the first process to start wins
        except FileExistsError:
            pass
        finally:
            tmp.unlink()
    return path.read_text().strip()


def _hops(raw: str | None) -> int:
    """TRUST_PROXY: how many proxies in front of the app set X-Forwarded-* headers (0: none)."""
    try:
        return max(int(raw or 0), 0)
    except ValueError:
        raise SystemExit(f"TRUST_PROXY must be a number of proxies (0, 1, 2, ...); got {raw!r}.") from None


def _count(name: str, default: int) -> int:
    """A whole number from the environment (0: no bound)."""
    raw = os.environ.get(name)
    try:
        return default if raw in (None, "") else max(int(raw), 0)
    except ValueError:
        raise SystemExit(f"{name} must be a whole number (0: no bound); got {raw!r}.") from None


def create_app(config: dict | None, games: Iterable[Game]) -> Flask:
    """The app serving `games` (the composition root's, companion/games/__init__.py), in that order."""
    served = {game.id: register(game) for game in games}
    app = Flask("companion", instance_path=str(ROOT / "instance"),
                template_folder=str(ROOT / "templates"), static_folder=str(ROOT / "static"))
    app.extensions["games"] = served
    instance = Path(app.instance_path)
    instance.mkdir(parents=True, exist_ok=True)
    app.config.update(
        DATABASE_URL=os.environ.get("DATABASE_URL") or f"sqlite:///{instance / 'companion.sqlite'}",
        MAX_CONTENT_LENGTH=256 * 1024,
        PUBLIC_URL=os.environ.get("PUBLIC_URL"),
        SECRET_KEY=os.environ.get("SECRET_KEY"),
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        RATELIMIT_STORAGE_URI=os.environ.get("REDIS_URL") or "memory://",
        REDIS_URL=os.environ.get("REDIS_URL"),  # also carries live updates between processes
        TRUST_PROXY=_hops(os.environ.get("TRUST_PROXY")),
        TABLES_PER_CLIENT=os.environ.get("TABLES_PER_CLIENT"),  # unset: limits.TABLES_PER_CLIENT
        # /history lists every table's games, not only this browser's (a home server's own history)
        HISTORY_LISTS_ALL=os.environ.get("HISTORY_LISTS_ALL", "0") not in ("", "0"),
        MAX_STREAMS_PER_CLIENT=_count("MAX_STREAMS_PER_CLIENT", live.STREAMS_PER_CLIENT),
    )
    if config:
        app.config.update(config)
    # cookies (the CSRF session and the seat and host tokens) travel only over https then
    app.config["SESSION_COOKIE_SECURE"] = hardening.public_is_https(app.config.get("PUBLIC_URL"))
    app.session_interface = hardening.SessionInterface()
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(instance)
    app.extensions["store"] = Store(app.config["DATABASE_URL"], older_tables=[
        (game.id, name, table) for game in served.values() for name, table in game.older_tables.items()])
    app.extensions["live"] = live.install(app.extensions["store"], app.config.get("REDIS_URL"),
                                          app.config["MAX_STREAMS_PER_CLIENT"])
    register_web(app)
    hardening.trust_proxy(app, app.config["TRUST_PROXY"])
    return app


FRIENDLY = {
    400: Text("That request was not understood."),
    404: Text("There is nothing here. Check the table code."),
    405: Text("That action is not possible here."),
    413: Text("That request is too large."),
    429: Text("Too many tries from this device. Wait a minute, then try again."),
}


def http_error(exc: HTTPException):
    own = exc.description if exc.description != type(exc).description and exc.code != 429 else None
    if isinstance(exc, RateLimitExceeded) and exc.limit.error_message:  # a limit that words its own refusal
        own = exc.description
    message = localize(own or FRIENDLY.get(exc.code) or exc.name)
    if request.path.startswith("/api/"):
        return jsonify(error=message), exc.code
    return render_template("error.html", message=message, status=exc.code), exc.code


def game_files(app: Flask, games) -> dict[str, str]:
    """Each game's own folders: its templates answer to names under `<id>/` (`<id>/sheet.html`),
    its static files to URLs under `/static/<id>/`; the platform's are `templates/` and `static/`.
    Returns the static folders by game id."""
    app.jinja_loader = ChoiceLoader([
        FileSystemLoader(app.template_folder),
        PrefixLoader({game.id: FileSystemLoader(game.folder / "templates") for game in games}),
    ])
    return {game.id: str(game.folder / "static") for game in games if (game.folder / "static").is_dir()}


def register_web(app: Flask) -> None:
    Htmx(app)
    i18n.install(app)  # before any template is compiled: it sets how every printed text is translated
    games = app.extensions["games"]
    static_folders = game_files(app, games.values())
    app.register_blueprint(pages)
    app.register_blueprint(api)
    app.register_blueprint(results)
    app.register_blueprint(rules)
    for game in games.values():
        if game.web is not None and game.web.blueprint is not None:
            app.register_blueprint(game.web.blueprint)
    install_limits(app)  # first: its check must run before any other hook can refuse the request
    app.before_request(hardening.allow_route_body_size)
    app.before_request(hardening.refuse_bad_input)
    app.before_request(auth.check_csrf)
    app.before_request(load_table_context)
    app.jinja_env.globals["csrf_token"] = auth.csrf_token  # also inside imported macros
    app.register_error_handler(HTTPException, http_error)
    faults.register(app)
    app.after_request(hardening.add_security_headers)
    install_wire(app, page_bundles(games), static_folders)
