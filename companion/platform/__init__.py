"""The platform: tables, seats, the entry log, the play service, the table pages and the JSON API.

It knows no game. Games meet it through `contract.Game` (rules) and `gameweb.GameWeb` (pages),
and are registered by the composition root, `companion/games/__init__.py`.
"""
