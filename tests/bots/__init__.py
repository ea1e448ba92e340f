"""Tests for arena.bots: bot manifests, builds and bot processes."""
