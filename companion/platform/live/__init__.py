"""Live updates: every open page of a table learns at once that it changed, whichever process made
the change (`updates`: the per-process hub and the buses between processes).

It builds on the store and imports nothing from the web.
"""
