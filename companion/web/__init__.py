"""The web layer: HTML pages for phones and the table, and the JSON API."""
from __future__ import annotations

from flask import Flask, abort, jsonify, render_template, request
from htmx_flask import Htmx
from werkzeug.exceptions import HTTPException

from . import auth
from .api import api
from .pages import pages
from .ui import UIS


def refuse_nul():
    """NUL cannot be stored as text (PostgreSQL refuses it): say so instead of failing later."""
    texts = [request.path, *request.args.values()]
    if request.method in ("POST", "PUT", "PATCH") and request.mimetype in (
            "application/x-www-form-urlencoded", "multipart/form-data"):
        texts += request.form.values()
    if any("\x00" in t for t in texts):
        abort(400, "Text in a request may not contain the NUL character.")


def register_web(app: Flask) -> None:
    Htmx(app)
    app.register_blueprint(pages)
    app.register_blueprint(api)
    for ui in UIS.values():
        if ui.blueprint is not None:
            app.register_blueprint(ui.blueprint)
    app.before_request(refuse_nul)
    app.before_request(auth.check_csrf)
    app.context_processor(auth.template_globals)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        friendly = {
            400: "That request was not understood.",
            404: "There is nothing here. Check the table code.",
            405: "That action is not possible here.",
            413: "That request is too large.",
        }
        own = exc.description if exc.description != type(exc).description else None
        message = own or friendly.get(exc.code) or exc.name
        if request.path.startswith("/api/"):
            return jsonify(error=message), exc.code
        return render_template("error.html", message=message, status=exc.code), exc.code
