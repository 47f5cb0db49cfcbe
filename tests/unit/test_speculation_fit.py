"""The speculation fit's counting: one guess per word, at the first prefix sure enough."""

from nextword.training.speculation_fit import Guesses, space_hits, word_hits


def test_one_guess_per_word_at_the_first_prefix_that_reaches_the_threshold() -> None:
    found = Guesses(
        words=[
            # "questions": "quest" at 0.4, then "questions" at 0.8: guessed right at 0.7,
            # wrongly at 0.3 (the first guess is the one made).
            ([(0.3, "quick"), (0.4, "quest"), (0.8, "questions")], "questions"),
            # "to" typed in full and followed by a full stop: a right word, no space.
            ([(0.2, "the"), (0.9, "to")], ""),
            ([(0.1, "a")], "an"),  # never sure enough
        ],
        spaces=[(0.9, True), (0.8, False), (0.4, True)],
    )
    assert word_hits(found, 0.7) == (2, 1)
    assert word_hits(found, 0.3) == (2, 0)
    assert word_hits(found, 0.95) == (0, 0)
    assert space_hits(found, 0.7) == (2, 1)
    assert space_hits(found, 0.3) == (3, 2)
