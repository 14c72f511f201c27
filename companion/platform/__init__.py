"""The platform: tables, seats, the entry log, the play service, the table pages and the JSON API.

It knows no game. Games meet it through `core.contract.Game` (rules) and `web.gameweb.GameWeb`
(pages), and are registered by the composition root, `companion/games/__init__.py`.

Its modules sit in four groups, each a package: `core` (the contract, the registry, the play
service), `store` (the database, backups), `web` (the Flask app, pages, API, the server) and `live`
(updates to open pages). core imports no other group; store imports no web and no live; live
imports no web (tests/test_code_shape.py holds this).
"""
