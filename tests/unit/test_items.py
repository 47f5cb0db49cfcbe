"""Engine candidates as completion and ghost-text items (lsp/items.py)."""

from __future__ import annotations

from lsprotocol import types

from nextword.engine import Candidate
from nextword.lsp.items import inline_list, offered

HERE = types.Range(types.Position(0, 10), types.Position(0, 13))


def ghost(candidates: list[Candidate], prefix: str) -> str | None:
    found = inline_list(candidates, HERE, prefix=prefix).items
    if not found:
        return None
    text = found[0].insert_text
    assert isinstance(text, str)
    return text


def test_ghost_text_is_the_best_completion() -> None:
    assert ghost([Candidate("tomorrow", 0.7), Candidate("tom", 0.2)], "tom") == "tomorrow"


def test_no_ghost_text_where_the_word_typed_in_full_is_likelier() -> None:
    """After "I'll call you" the user most likely types a space: "r" is noise."""
    assert ghost([Candidate("you", 0.71), Candidate("your", 0.26)], "you") is None


def test_ghost_text_never_offers_a_correction_or_a_lesser_word_than_its_capitals() -> None:
    fixed = [Candidate("receive", 0.6, correction=True), Candidate("recital", 0.1)]
    assert ghost(fixed, "reci") == "recital"
    recased = [Candidate("Saturday", 0.5, correction=True), Candidate("sat", 0.2)]
    assert ghost(recased, "sat") is None


def test_the_phrase_comes_first() -> None:
    assert ghost([Candidate("you", 0.9)], "you") is None
    found = inline_list([Candidate("you", 0.9)], HERE, prefix="you", phrase="you soon").items
    assert [i.insert_text for i in found] == ["you soon"]


def test_the_popup_leaves_out_the_word_typed_in_full() -> None:
    ranked = [Candidate("you", 0.71), Candidate("your", 0.26), Candidate("'you", 0.01)]
    assert [c.text for c in offered(ranked, "you")] == ["your"]


def test_ghost_text_reads_the_candidates_likeliest_first() -> None:
    """The popup puts the words that save a keystroke first ("that" after "th"); ghost
    text is still the likeliest word, "the", passed over by the popup."""
    popup_order = [Candidate("that", 0.2), Candidate("this", 0.1), Candidate("the", 0.6)]
    assert ghost(popup_order, "th") == "the"
    typed_first = [Candidate("your", 0.3), Candidate("you", 0.6)]
    assert ghost(typed_first, "you") is None


def test_a_word_saves_keys_two_letters_past_the_prefix_or_as_a_correction() -> None:
    assert Candidate("there", 0.1).saves("th") and Candidate("that", 0.1).saves("th")
    assert not Candidate("the", 0.1).saves("th") and not Candidate("I", 0.1).saves("")
    assert Candidate("the", 0.1, correction=True).saves("teh")
