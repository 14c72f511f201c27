"""The core: what a game is to the platform (`contract`), which games it serves (`registry`), what
a table is (`records`) and the play service (`play`: replay a log, check and record entries, undo).

It imports nothing from the other groups: the store is handed to the play service, which needs no
more of it than `records.TableLog`.
"""
