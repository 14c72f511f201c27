"""Companion: phone scoresheets for games played with real dice and boards."""
from __future__ import annotations

import os
import secrets
from pathlib import Path

from flask import Flask

from .storage import Store

ROOT = Path(__file__).resolve().parent.parent


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


def create_app(config: dict | None = None) -> Flask:
    app = Flask(__name__, instance_relative_config=True,
                template_folder=str(ROOT / "templates"), static_folder=str(ROOT / "static"))
    instance = Path(app.instance_path)
    instance.mkdir(parents=True, exist_ok=True)
    app.config.update(
        DATABASE_URL=os.environ.get("DATABASE_URL") or f"sqlite:///{instance / 'companion.sqlite'}",
        MAX_CONTENT_LENGTH=256 * 1024,
        PUBLIC_URL=os.environ.get("PUBLIC_URL"),
        SECRET_KEY=os.environ.get("SECRET_KEY"),
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
    )
    if config:
        app.config.update(config)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(instance)

    app.extensions["store"] = Store(app.config["DATABASE_URL"])

    from .web import register_web
    register_web(app)
    return app
