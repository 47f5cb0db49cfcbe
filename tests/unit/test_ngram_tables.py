"""The word trigram's tables (training/tables.py) as engine/ngram.py and engine/genres.py
read them: real probabilities, one trigram per genre, and weights that follow the text."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from nextword.engine.genres import CATCH_UP_WORDS, GenreNGram, GenreWeights
from nextword.engine.lexicon import find, narrowed
from nextword.engine.ngram import (
    DISCOUNT,
    SHORT_LINE,
    NGram,
    events,
    events_before,
    history_ids,
)
from nextword.engine.variants import Variants
from nextword.training.tables import (
    build_genre_ngrams,
    build_ngrams,
    continuation_counts,
    ngram_ids,
    ngram_tables,
)

WORDS = ["a", "b", "c", "hello", "how", "are", "you", "the", "law", "shall"]
INDEX = {w: i for i, w in enumerate(WORDS)}


def tables_of(text: str, min_count: int = 1) -> NGram:
    ids = np.array([len(WORDS) + 1] + [INDEX[w] for w in text.split()], dtype=np.int64)
    arrays = ngram_tables(ids, len(WORDS), min_count=min_count)
    return NGram(arrays, np.full(len(WORDS), 1.0 / len(WORDS), dtype=np.float32))


def test_a_context_seen_gives_its_continuations_their_discounted_share() -> None:
    # "a b" is followed by c twice and by a once: P(c | a b) = (2 - D) / 3 + backoff.
    ngram = tables_of("a b c a b c a b a")
    a, b, c = INDEX["a"], INDEX["b"], INDEX["c"]
    p = ngram.prob((a, b), c)
    lower = ngram.prob((len(WORDS) + 1, b), c)  # the bigram's P(c | b), via no trigram
    assert p == pytest.approx((2 - DISCOUNT) / 3 + DISCOUNT * 2 / 3 * lower, rel=1e-5)
    # Every context's distribution sums to one before normalising: its own total,
    # not another context's, divides its counts.
    for u, v in [(a, b), (b, c), (c, a)]:
        coef, terms = ngram.terms((u, v))
        total = coef * ngram.unigram.sum() + sum(values.sum() for _, values in terms)
        assert total == pytest.approx(1.0, abs=1e-4)
        assert ngram.distribution((u, v))[c] == pytest.approx(ngram.prob((u, v), c), rel=1e-4)


def test_a_context_seen_once_lends_the_lower_order_its_strength() -> None:
    text = "a b c a b c a b a how are you the law shall"
    a, b, c, are = INDEX["a"], INDEX["b"], INDEX["c"], INDEX["are"]
    how, you = INDEX["how"], INDEX["you"]
    plain = tables_of(text)
    ids = np.array([len(WORDS) + 1] + [INDEX[w] for w in text.split()], dtype=np.int64)
    strong = NGram(
        ngram_tables(ids, len(WORDS), min_count=1),
        np.full(len(WORDS), 0.1, dtype=np.float32),
        strength=2.0,
    )
    # "how are" was seen once, followed by you: a quarter of the mass without the
    # strength, (1 - D) / (1 + 2) with it, and the rest to the bigram's P(you | are)
    # ("are" too was seen once: its bigram lends its unigram the same way).
    start = len(WORDS) + 1
    lower = plain.prob((start, are), you)
    assert lower == pytest.approx(1 - DISCOUNT + DISCOUNT * 0.1, rel=1e-5)
    assert plain.prob((how, are), you) == pytest.approx(1 - DISCOUNT + DISCOUNT * lower, rel=1e-5)
    lower = strong.prob((start, are), you)
    assert lower == pytest.approx((1 - DISCOUNT + (DISCOUNT + 2) * 0.1) / 3, rel=1e-5)
    assert strong.prob((how, are), you) == pytest.approx(
        (1 - DISCOUNT + (DISCOUNT + 2) * lower) / 3, rel=1e-5
    )
    assert strong.distribution((how, are)).sum() == pytest.approx(1.0, abs=1e-5)
    # A context seen three times keeps its counts as they are.
    assert strong.prob((a, b), c) == pytest.approx(plain.prob((a, b), c), rel=1e-6)


def test_lower_orders_count_the_words_before_an_ngram_not_its_occurrences() -> None:
    """Kneser-Ney: "how" was seen five times, always after "hello"; "the" four times,
    after four different words. Where the history says nothing, "the" is likelier."""
    text = "hello how " * 5 + "a the b the c the you the"
    ids = np.array([len(WORDS) + 1] + [INDEX[w] for w in text.split()], dtype=np.int64)
    raw = ngram_tables(ids, len(WORDS), min_count=1)
    kn = ngram_tables(ids, len(WORDS), min_count=1, continuation=True)
    assert "uni_continuation" not in raw
    assert kn["uni_continuation"][INDEX["the"]] == 4
    assert kn["uni_continuation"][INDEX["how"]] == 1
    followed = kn["uni_continuation"].astype(np.float32)
    unseen = (INDEX["law"], INDEX["shall"])  # no bigram or trigram of it was counted
    ngram = NGram(kn, (followed + 0.5) / (followed.sum() + 0.5 * len(WORDS)))
    assert ngram.prob(unseen, INDEX["the"]) > 2 * ngram.prob(unseen, INDEX["how"])
    # The bigram "hello how" was seen five times, after two different words (the
    # start symbol and "how"); the trigram, the highest order, keeps its counts.
    row = find(kn["bi_keys"], INDEX["hello"])
    assert row is not None and kn["bi_count"][kn["bi_ptr"][row]] == 2
    row = find(raw["bi_keys"], INDEX["hello"])
    assert row is not None and raw["bi_count"][raw["bi_ptr"][row]] == 5
    np.testing.assert_array_equal(kn["tri_count"], raw["tri_count"])
    # A 4-gram's lower order is the trigram, three words read as two.
    base = len(WORDS) + 2
    ctx, nxt, counts = continuation_counts(
        np.array([1 * base**2 + 2 * base + 3, 4 * base**2 + 2 * base + 3]),
        np.array([5, 5]),
        3,
        base,
    )
    assert ctx.tolist() == [2 * base + 3] and nxt.tolist() == [5] and counts.tolist() == [2]


def test_pruning_keeps_the_contexts_of_kept_ngrams_whole() -> None:
    ngram = tables_of("a b c a b c a b a", min_count=2)
    # "a b a" was seen once and is pruned; "a b c" twice and kept.
    a, b, c = INDEX["a"], INDEX["b"], INDEX["c"]
    assert ngram.prob((a, b), c) > ngram.prob((a, b), a)
    assert ngram.distribution((a, b)).sum() == pytest.approx(1.0, abs=1e-5)


def test_an_everyday_genre_reads_three_words_back(tmp_path: Path) -> None:
    # "the late" is followed by "war" more often, but after "for the late" it was
    # always "reply": the chat's 4-gram knows, a trigram cannot.
    words = ["sorry", "for", "in", "after", "during", "the", "late", "war", "reply"]
    index = {w: i for i, w in enumerate(words)}
    text = "in the late war . after the late war . during the late war . " * 2
    text += "sorry for the late reply . " * 3
    chat = write(tmp_path, "chat", text)
    arrays = build_genre_ngrams([chat], index, ["chat"], [1.0])
    assert "g0_quad_keys" in arrays
    model = GenreNGram.from_arrays(arrays, len(index), evidence=1.0)
    reply = model.distribution(history_ids("Sorry for the late ", index, len(index), model.fold))
    assert reply[index["reply"]] > 0.7
    war = model.distribution(history_ids("We won the late ", index, len(index), model.fold))
    assert war[index["war"]] > 0.6
    # The chats' 4-grams seen once are pruned, as trigrams are in the technical genres;
    # the emails' are kept.
    once = write(tmp_path, "once", "in the late war . sorry for the late reply . ")
    assert len(build_genre_ngrams([once], index, ["chat"], [1.0])["g0_quad_next"]) == 0
    assert len(build_genre_ngrams([once], index, ["email"], [1.0])["g0_quad_next"]) > 0
    # Other genres count trigrams only.
    assert "g0_quad_keys" not in build_genre_ngrams([chat], index, ["speech"], [1.0])


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f"{name}.txt"
    path.write_text(text, encoding="utf-8")
    return path


def test_each_genre_has_its_trigram_and_the_document_finds_its_own(tmp_path: Path) -> None:
    chat = write(tmp_path, "chat", "hello how are you . " * 40)
    speech = write(tmp_path, "speech", "the law shall be the law . " * 40)
    arrays = build_genre_ngrams([chat, speech], INDEX, ["chat", "speech"], [0.5, 0.5])
    assert list(arrays["genre_names"]) == ["chat", "speech"]
    model = GenreNGram.from_arrays(arrays, len(WORDS), evidence=2.0)
    start = len(WORDS) + 1
    hello, how, are = INDEX["hello"], INDEX["how"], INDEX["are"]
    assert model.probs((start, hello, how), are)[0] > 10 * model.probs((start, hello, how), are)[1]

    tracker = GenreWeights(model, INDEX)
    assert tracker.weights == pytest.approx([0.5, 0.5])
    tracker.update("hello how are you. hello how ")
    assert tracker.weights[0] > 0.8  # (c * 0.5 + ~6) / (c + 6) with c = 2
    # Typing on reads only the new words; text that does not extend it starts over.
    words = tracker.words
    tracker.update("hello how are you. hello how are ")
    assert tracker.words == words + 1
    tracker.update("the law shall be the law. the ")
    assert tracker.weights[1] > 0.8
    # Text that jumped ahead is read from its last words only, each in its own history.
    jumped = "the law shall be the law. the "
    tracker.update(jumped)
    before = tracker.words
    tracker.update(jumped + "hello how are you. " * 20)
    assert tracker.words == before + CATCH_UP_WORDS
    assert tracker.history == (INDEX["are"], INDEX["you"], start)  # the sentence end is <s>
    tracker.update("the law shall be the law. the ")
    # The mix follows the weights: after "the", "law" from the speeches.
    mixed = model.distribution((start, start, INDEX["the"]), tracker.weights)
    assert int(np.argmax(mixed)) == INDEX["law"]


def test_the_genres_mix_as_their_own_distributions_would(tmp_path: Path) -> None:
    # GenreNGram mixes the genres' unigrams in one product and adds their counts after
    # (NGram.terms): the same as weighing each genre's normalised distribution, for a
    # history seen in one genre, in both, in none, and a genre weighed out (< 1e-3).
    chat = write(tmp_path, "chat", "hello how are you . the law is how you are . " * 20)
    speech = write(tmp_path, "speech", "the law shall be the law . how are the law . " * 20)
    arrays = build_genre_ngrams([chat, speech], INDEX, ["chat", "speech"], [0.5, 0.5])
    model = GenreNGram.from_arrays(arrays, len(WORDS), evidence=2.0)
    start = len(WORDS) + 1
    the, law, how, c = INDEX["the"], INDEX["law"], INDEX["how"], INDEX["c"]
    for history in [(start, start, how), (start, the, law), (start, c, c), (the, law, how)]:
        for weights in [model.prior, np.array([0.9, 0.1]), np.array([1.0, 0.0])]:
            pairs = zip(model.tables, weights, strict=True)
            expected = sum(w * t.distribution(history) for t, w in pairs if w >= 1e-3)
            got = model.distribution(history, weights)
            np.testing.assert_allclose(got, expected / expected.sum(), rtol=1e-5)


def test_ngram_ids_open_each_document_with_the_start_symbol(tmp_path: Path) -> None:
    path = write(tmp_path, "t", "hello you\n\f\nhow are")
    ids = list(ngram_ids([path], INDEX))
    start = len(WORDS) + 1
    assert ids == [start, INDEX["hello"], INDEX["you"], start, INDEX["how"], INDEX["are"]]


def test_a_dotted_abbreviation_is_one_event_and_ends_no_sentence() -> None:
    """Read as words, "i.e." was "i", "e" and a sentence end: the tables then offered
    "e" after every lower-case "i"."""
    text = "Use one, i.e. a hammer. In the U.S. at 5 p.m. we met. Version 3.5. ok"
    assert events(text) == [
        "Use", "one", "i.e.", "a", "hammer", "<s>", "In", "the", "U.S.", "at", "5",
        "p.m.", "we", "met", "<s>", "Version", "3", "5", "<s>", "ok",
    ]  # fmt: skip


def test_a_history_can_be_read_in_standard_spelling() -> None:
    spell = Variants({"i": "I", "dont": "don't", "im": "I'm"}).standard
    assert events_before("yeah i dont. Im", 400, 4, spell) == ["I", "don't", "<s>", "I'm"]
    assert events_before("yeah i dont", 400, 2) == ["i", "dont"]


def test_a_short_line_ends_a_sentence_and_a_wrapped_one_does_not() -> None:
    """A greeting, a sign-off or a chat message ends a sentence at its newline; prose
    wrapped at a width goes on over it; training and decisions read text alike."""
    assert events("Hi Sarah,\nThanks for") == ["Hi", "Sarah", "<s>", "Thanks", "for"]
    # A note's items are lines of their own: "Monday" does not lead into "Pay".
    assert events("Call the dentist on Monday\nPay the bill")[5:7] == ["<s>", "Pay"]
    wrapped = "x" * SHORT_LINE + " and\nthe cake"
    assert events(wrapped)[-3:] == ["and", "the", "cake"]
    assert events("a\n\nb") == ["a", "<s>", "b"]  # a blank line, once
    # Code's short lines go on: an indented one, one that opens a block or ends a call.
    assert "<s>" not in events("try:\n    x = f(y)\n    z = 1\nfoo()\nbar")
    # A piece cut from a longer text does not know its first line's length.
    assert events("Sarah,\nThanks", opens_line=False) == ["Sarah", "Thanks"]
    # The window a decision reads (its last 400 characters) is such a piece: here it
    # opens on the last 16 characters of a line of 402.
    start = len(WORDS) + 1
    context = "a " * 200 + "b\n" + " " * 380 + "you "
    assert history_ids(context, INDEX, len(WORDS)) == (INDEX["a"], INDEX["b"], INDEX["you"])
    assert history_ids("hello you\n", INDEX, len(WORDS)) == (INDEX["hello"], INDEX["you"], start)


def test_the_tables_are_read_in_the_fewest_bytes_that_hold_them() -> None:
    ids = np.array([0, 7, 60_001], dtype=np.int32)
    assert narrowed("tri_next", ids).dtype == np.uint16
    assert narrowed("g3_bi_count", np.array([1, 70_000], dtype=np.int32)).dtype == np.int32
    assert narrowed("bi_ptr", np.array([0, 5_000_000], dtype=np.int64)).dtype == np.int32
    assert (narrowed("tri_next", ids) == ids).all()
    # A context's total and number of continuations, written as floats, are whole
    # numbers; a fraction would stay a float.
    types = np.array([1.0, 60_000.0], dtype=np.float32)
    assert narrowed("g0_quad_types", types).dtype == np.uint16
    assert narrowed("g0_tri_total", types).dtype == np.uint16
    assert narrowed("bi_total", types * 2).dtype == np.int32
    assert narrowed("bi_total", types / 3).dtype == np.float32
    # A trigram's keys (two ids of a 60,000-word lexicon) fit in 32 bits, a 4-gram's
    # do not; other arrays stay as stored.
    keys = np.array([3_600_240_003], dtype=np.int64)
    assert narrowed("tri_keys", keys).dtype == np.uint32
    assert narrowed("g2_quad_keys", keys * 60_002).dtype == np.int64
    assert narrowed("counts", ids).dtype == np.int32
    # Tables read narrowed answer as they do wide, and a key past a table's type (a
    # history the text never had) is not found.
    arrays = ngram_tables(np.array([11, 0, 1, 2, 0, 1, 2]), len(WORDS), min_count=1)
    uniform = np.full(len(WORDS), 1.0 / len(WORDS), dtype=np.float32)
    wide, narrow = (
        NGram(arrays, uniform),
        NGram({k: narrowed(k, v) for k, v in arrays.items()}, uniform),
    )
    assert narrow._a["tri_keys"].dtype == np.uint16
    for history in [(0, 1), (11, 0), (9, 9), (11, 11)]:
        np.testing.assert_allclose(narrow.distribution(history), wide.distribution(history))
    assert find(narrow._a["tri_keys"], 2**40) is None
    for history in [(0, 1), (11, 0), (9, 9)]:
        assert narrow.prob(history, 2) == pytest.approx(wide.prob(history, 2))


def test_find_looks_a_key_up_in_a_narrowed_array_without_widening_it() -> None:
    keys = np.array([3, 70, 65_000], dtype=np.uint16)
    assert [find(keys, k) for k in (3, 70, 65_000)] == [0, 1, 2]
    # Absent, below, past the type's range, and an empty table: not found.
    assert find(keys, 71) is None and find(keys, 0) is None and find(keys, 2**40) is None
    assert find(np.array([], dtype=np.uint32), 5) is None


def test_a_sentence_opening_capital_is_read_as_the_word_inside_sentences(tmp_path: Path) -> None:
    words = ["Happy", "happy", "birthday", "John", "john", "said", "to", "you"]
    index = {w: i for i, w in enumerate(words)}
    # (build_ngrams prunes what was seen once.)
    text = "we are happy birthday to you . " * 5 + "Happy to . John said . we john said . " * 2
    text += "we John said . " * 3
    arrays = build_ngrams([write(tmp_path, "chat", text)], index)
    fold = arrays["start_fold"]
    # "happy" is the usual case inside sentences; "John" is a name, and stays.
    assert fold[index["Happy"]] == index["happy"]
    assert fold[index["John"]] == index["John"]
    ngram = NGram(arrays, np.full(len(words), 1.0 / len(words), dtype=np.float32), fold)
    history = history_ids("Thanks. Happy ", index, len(words), ngram.fold)
    assert history[-1] == index["happy"]
    # "happy birthday" now informs what follows a sentence's "Happy"; tables of the
    # same text without the fold know only "Happy to".
    uniform = np.full(len(words), 1.0 / len(words), dtype=np.float32)
    ids = ngram_ids([tmp_path / "chat.txt"], index)
    plain = NGram(ngram_tables(ids, len(words)), uniform)
    birthday = index["birthday"]
    unfolded = (*history[:-1], index["Happy"])
    assert ngram.distribution(history)[birthday] > 3 * plain.distribution(unfolded)[birthday]
    # Inside a sentence the capital is what was written (a name's, here).
    assert history_ids("we met Happy ", index, len(words), ngram.fold)[-1] == index["Happy"]
    # The predicted word keeps its case: a sentence opens with "Happy", not "happy".
    start = len(words) + 1
    you = index["you"]
    assert ngram.prob((you, start), index["Happy"]) > ngram.prob((you, start), index["happy"])
    # Tables written before the fold read every history as it is.
    assert history_ids("Thanks. Happy ", index, len(words))[-1] == index["Happy"]


def test_the_genre_weights_read_histories_as_the_tables_do(tmp_path: Path) -> None:
    chat = write(tmp_path, "chat", "hello how are you . " * 40 + "How are you . ")
    speech = write(tmp_path, "speech", "the law shall be the law . " * 40)
    index = {**INDEX, "How": len(WORDS)}
    arrays = build_genre_ngrams([chat, speech], index, ["chat", "speech"], [0.5, 0.5])
    model = GenreNGram.from_arrays(arrays, len(index), evidence=2.0)
    assert model.fold is not None and model.fold[index["How"]] == index["how"]
    tracker = GenreWeights(model, index)
    tracker.update("hello. How ")
    assert tracker.history == (index["hello"], len(index) + 1, index["how"])
