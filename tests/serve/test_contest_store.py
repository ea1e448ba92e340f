"""The contest's tables: tokens stored hashed, who plays, rounds numbered by seeds."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.serve.contest import ContestError, ContestStore, contest_path, hash_token


def test_tokens_are_kept_only_as_hashes(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    store = ContestStore.open(db)
    token = store.add_contestant("alice")
    admin = store.new_admin_token()
    assert token is not None and store.add_contestant("house", house=True) is None
    who = store.contestant_of(token)
    assert who is not None and who.name == "alice" and not who.house
    assert store.contestant_of(admin) is None and store.contestant_of("x") is None
    assert store.is_admin(admin) and not store.is_admin(token)
    assert store.new_admin_token() != admin and not store.is_admin(admin)
    with pytest.raises(ContestError, match="exists already"):
        store.add_contestant("alice")
    store.close()
    raw = b"".join(
        p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith(contest_path(db).name)
    )
    assert token.encode() not in raw and hash_token(token).encode() in raw


def test_the_newest_version_plays_unless_retired_or_banned(tmp_path: Path) -> None:
    store = ContestStore.open(tmp_path / "arena.db")
    for name in ("alice", "bob"):
        store.add_contestant(name)
    store.add_version("alice", "aaaaaaaaaaa1", "alice/aaaaaaaaaaa1/bot", [])
    store.add_version("alice", "aaaaaaaaaaa2", "alice/aaaaaaaaaaa2/bot", [])
    store.add_version("bob", "bbbbbbbbbbb1", "bob/bbbbbbbbbbb1/bot", [])
    assert [v.label for v in store.laddered()] == ["alice@aaaaaaaaaaa2", "bob@bbbbbbbbbbb1"]
    store.retire("alice", "aaaaaaaaaaa2")
    assert [v.label for v in store.laddered()] == ["bob@bbbbbbbbbbb1"]  # not the older one
    store.ban("bob")
    assert store.laddered() == []
    with pytest.raises(ContestError):
        store.retire("carol")
    store.close()


def test_rounds_take_the_next_seeds(tmp_path: Path) -> None:
    store = ContestStore.open(tmp_path / "arena.db")
    first = store.start_round(("a@1", "b@1", "c@1"), 2)
    second = store.start_round(("a@2", "a@1"), 3)
    assert (first.first_game, second.first_game) == (0, 2)
    assert store.start_round(("a@1", "b@1", "c@1"), 1).first_game == 5
    store.finish_round(first.id)
    assert [r.id for r in store.rounds(unfinished_only=True)] == [second.id, second.id + 1]
    assert store.rounds()[1].entrants == ("a@2", "a@1")
    store.close()
