"""The tables behind a play decision's ``Legal`` (R7.2): the same value as listing the cards."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from arena.engine import PLAYS, DecisionKind, Legal
from arena.engine.cards import FULL_DECK_MASK, indices_of_mask
from arena.engine.legal import PlayChoices, plays_of_mask

MASKS = st.integers(min_value=0, max_value=FULL_DECK_MASK)


def listed(mask: int) -> Legal:
    return Legal.of(DecisionKind.PLAY, tuple(PLAYS[i] for i in indices_of_mask(mask)))


@given(MASKS)
def test_plays_of_a_mask_are_its_cards_lowest_first(mask: int) -> None:
    assert plays_of_mask(mask) == tuple(PLAYS[i] for i in indices_of_mask(mask))


@given(st.lists(MASKS, min_size=1, max_size=12))
def test_kept_choices_equal_fresh_ones_and_the_table_stays_within_its_limit(
    masks: list[int],
) -> None:
    choices = PlayChoices(limit=3)
    for mask in masks + masks:
        assert choices[mask] == listed(mask)
        assert len(choices) <= 3
