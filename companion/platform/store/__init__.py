"""The store: the database's schema, the engines it runs on (SQLite, PostgreSQL) and their
checkpoints, the tables and entry logs kept there (`storage`), players' records across games, and
the backup files of a whole database.

It builds on the core and imports nothing from the web or live groups.
"""
