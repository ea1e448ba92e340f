"""Tournaments: the SQLite results store (``results``) and the statistics over it (``stats``)."""
