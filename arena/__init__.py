"""Schmier Arena: referee, bot SDK and tournaments for the card game Schmier."""
