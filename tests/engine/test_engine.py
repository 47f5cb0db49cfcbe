"""The decision API on a tiny real model: words, prefixes, KV-cache reuse, windows."""

from __future__ import annotations

import numpy as np
import pytest

from nextword.engine.engine import Engine
from nextword.engine.words import WORD_RE, is_candidate

CONTEXT = "The editor opens the file and the user starts to type a new "


def test_candidates_are_whole_words_starting_with_the_prefix(tiny_engine: Engine):
    decider = tiny_engine.decider()
    for prefix in ("", "t", "th", "s", "wor"):
        candidates = decider.decide(CONTEXT, prefix, 5)
        assert len(candidates) <= 5
        assert candidates or prefix, "a word start always has candidates"
        for c in candidates:
            assert c.text.startswith(prefix) and c.text != prefix
            assert WORD_RE.fullmatch(c.text) and is_candidate(c.text)
            assert 0 < c.prob <= 1
        # Likeliest first; in a word, the words that save a keystroke before those
        # one letter on (BoundaryDecider._popup), each part likeliest first.
        saving = [c.saves(prefix) or not prefix for c in candidates]
        assert saving == sorted(saving, reverse=True)
        for part in (True, False):
            probs = [c.prob for c, s in zip(candidates, saving, strict=True) if s == part]
            assert probs == sorted(probs, reverse=True)


def test_keystrokes_inside_a_word_filter_without_running_the_model(tiny_engine: Engine):
    decider = tiny_engine.decider()
    decider.decide(CONTEXT, "", 5)
    forwards = decider.stats.forwards
    for prefix in ("t", "to", "tok"):  # "tokens" is in the tiny model's lexicon
        assert decider.decide(CONTEXT, prefix, 5)
    assert decider.stats.forwards == forwards
    assert decider.stats.cache_hits == 3 and decider.stats.decisions == 1


def test_next_word_reuses_the_kv_cache(tiny_engine: Engine):
    decider = tiny_engine.decider()
    decider.decide(CONTEXT, "", 5)
    scorer = decider._scorer
    before_run, before_tokens = scorer.tokens_run, len(scorer.tokens)
    decider.decide(CONTEXT + "sentence ", "", 5)
    # Only the new word's tokens ran through the model.
    new_tokens = len(scorer.tokens) - before_tokens
    assert 1 <= new_tokens <= 8
    assert scorer.tokens_run - before_run == new_tokens


@pytest.mark.parametrize(
    ("engine", "line"),
    [
        ("tiny_engine", "word{n} and the cat "),
        # Read in the standard spelling ("I'm sure I don't"), a character longer here and
        # there: the cut falls near the offset it was read at, still at a word start.
        ("default_engine", "im sure i dont know why u cant come {n} "),
    ],
)
def test_window_slides_to_a_word_start_and_stays_bounded(
    engine: str, line: str, request: pytest.FixtureRequest
):
    decider = request.getfixturevalue(engine).decider(window_tokens=32)
    text = ""
    for i in range(60):
        text += line.format(n=i % 7)
        decider.decide(text, "", 3)
        assert len(decider._scorer.tokens) <= 32
        assert decider._anchor == 0 or text[decider._anchor - 1] == " "
    assert decider._anchor > 0


def test_temperature_zero_is_deterministic_and_sampling_is_seeded(tiny_engine: Engine):
    a = [c.text for c in tiny_engine.decider().decide(CONTEXT, "", 5)]
    b = [c.text for c in tiny_engine.decider().decide(CONTEXT, "", 5)]
    assert a == b
    hot1 = tiny_engine.decider(temperature=1.5, seed=7).decide(CONTEXT, "", 5)
    hot2 = tiny_engine.decider(temperature=1.5, seed=7).decide(CONTEXT, "", 5)
    assert hot1 == hot2 and set(c.text for c in hot1) <= set(
        c.text for c in tiny_engine.decider().decide(CONTEXT, "", 50)
    )


def test_document_words_become_candidates(tiny_engine: Engine):
    context = "We call frobnicate_widget here. Later we call "
    texts = [c.text for c in tiny_engine.decider().decide(context, "frob", 5)]
    assert texts[0] == "frobnicate_widget"


@pytest.mark.parametrize(
    "context,prefix",
    [
        ("", ""),
        ("   \n\t ", ""),
        ("今天天气真", ""),
        ("emoji 😀 and more ", ""),
        ("mixed 中文 text ", "te"),
        ("The end. ", "zzzzqqq"),
        ("x" * 1_000_000 + " ", ""),
        ("word " * 200_000, "w"),
    ],
)
def test_any_text_gives_words_or_nothing(tiny_engine: Engine, context: str, prefix: str):
    for c in tiny_engine.decider().decide(context, prefix, 5):
        assert c.text.startswith(prefix)
        assert "\ufffd" not in c.text
        c.text.encode("utf-8")  # no lone surrogates


def test_bad_arguments_give_no_candidates(tiny_engine: Engine):
    decider = tiny_engine.decider()
    assert decider.decide(CONTEXT, "", 0) == []
    assert decider.decide(CONTEXT, "a b", 5) == []


def test_scorer_matches_a_full_forward(tiny_engine: Engine):
    """Cached incremental scoring gives the same log-probabilities as a fresh forward."""
    import mlx.core as mx

    from nextword.engine.scorer import Scorer

    def sequence_logprobs(model, tokens):  # one forward over the whole sequence
        logits = model(mx.array(tokens)[None])[0].astype(mx.float32)
        return np.array(logits - mx.logsumexp(logits, axis=-1, keepdims=True))

    tokens = tiny_engine.loaded.tokenizer.encode("The user types a word and the engine").ids
    scorer = Scorer(tiny_engine.loaded.model)
    scorer.logprobs(tokens[:4])
    incremental = scorer.logprobs(tokens)
    full = sequence_logprobs(tiny_engine.loaded.model, tokens)[-1]
    np.testing.assert_allclose(incremental, full, atol=1e-4)
    # Going back (a backspace) trims the cache instead of recomputing.
    back = scorer.logprobs(tokens[:-2])
    np.testing.assert_allclose(
        back, sequence_logprobs(tiny_engine.loaded.model, tokens[:-2])[-1], atol=1e-4
    )


def test_a_started_forward_reads_what_a_finished_one_would(tiny_engine: Engine):
    """`Scorer.request` returns before the forward ends: its result, read after other
    work, is `logprobs`'s; asked again for the same tokens it costs no forward."""
    from nextword.engine.scorer import Scorer

    tokens = tiny_engine.loaded.tokenizer.encode("The user types a word and the engine").ids
    expected = Scorer(tiny_engine.loaded.model).logprobs(tokens)
    scorer = Scorer(tiny_engine.loaded.model)
    scorer.logprobs(tokens[:4])
    pending = scorer.request(tokens)
    np.exp(np.arange(100_000.0) / 1e5).sum()  # the caller's own work meanwhile
    np.testing.assert_allclose(pending.result(), expected, atol=1e-5)
    forwards = scorer.forwards
    assert scorer.request(tokens).result() is pending.result()
    assert scorer.forwards == forwards


def test_slide_ahead_spares_the_next_decision_the_recompute(tiny_engine: Engine):
    decider = tiny_engine.decider(window_tokens=32)
    text = ""
    while len(decider._scorer.tokens) < 26:
        text += "the user types a word "
        decider.decide(text, "", 3)
    assert decider.slide_ahead(text)
    run = decider._scorer.tokens_run
    decider.decide(text, "", 3)
    # The window already slid: the decision ran only the last token again.
    assert decider._scorer.tokens_run - run <= 1
    assert not decider.slide_ahead(text)


def test_filter_cached_never_runs_the_model(tiny_engine: Engine):
    decider = tiny_engine.decider()
    assert decider.filter_cached(CONTEXT, "t", 5) is None
    assert decider._scorer.forwards == 0
    decider.decide(CONTEXT, "", 5)
    forwards = decider._scorer.forwards
    words = decider.filter_cached(CONTEXT, "to", 5)
    assert words and all(c.text.startswith("to") for c in words)
    assert decider.filter_cached(CONTEXT, "zzzq", 5) == []  # no spelling here
    assert decider.filter_cached(CONTEXT + "x ", "", 5) is None
    assert decider._scorer.forwards == forwards


def test_catching_up_after_a_jump_forwards_only_the_last_tokens(default_engine) -> None:
    """After queued typing is read at once, the next decision forwards a short window."""
    from nextword.engine.window import CATCH_UP_TOKENS

    text = (
        "The committee met on Tuesday to discuss the budget for the coming year, and "
        "after a long debate about the roads, the schools and the library, it agreed "
        "to raise the funds for the new bridge over the river by the end of the spring. "
    )
    decider = default_engine.decider()
    decider.decide("The committee met on ", "", 5)
    before = decider._scorer.tokens_run
    decider.catch_up()
    assert decider.decide(text, "", 5)
    assert decider._scorer.tokens_run - before <= CATCH_UP_TOKENS
    # Without the catch-up the same jump forwards every new token.
    plain = default_engine.decider()
    plain.decide("The committee met on ", "", 5)
    before = plain._scorer.tokens_run
    plain.decide(text, "", 5)
    assert plain._scorer.tokens_run - before > 2 * CATCH_UP_TOKENS
    # The window grows back from there: the next word costs a token or two.
    before = decider._scorer.tokens_run
    decider.decide(text + "Then ", "", 5)
    assert decider._scorer.tokens_run - before <= 3


def test_the_document_does_not_offer_the_word_just_written(default_engine: Engine) -> None:
    """The document's own counts offer its other words after a word, never that word
    again ("Happy" -> "Happy"); a word seldom follows itself."""
    index = default_engine.lexicon.index
    decider = default_engine.decider()
    parts = {p.name: p for p in decider.components("the cat saw the dog and the ").parts}
    doc = parts["doc"]
    assert doc.dense[index["the"]] == 0.0
    # Over the other words' own total: cat, saw, dog, and one each of four.
    assert doc.dense[index["cat"]] == pytest.approx(0.25)
    assert "Happy" not in [c.text for c in default_engine.decider().decide("Happy ", "", 5)]
    only = {p.name for p in default_engine.decider().components("Happy ").parts}
    assert "doc" not in only  # its one word was the last: nothing else to offer


def test_a_capital_that_opened_a_sentence_is_its_lower_case_word_inside_one(
    default_engine: Engine,
) -> None:
    """A document that opened with "How are" is not offered "How": inside a sentence
    a capital that opened one counts as its lower-case word; names keep their capital."""
    index = default_engine.lexicon.index
    parts = {p.name: p for p in default_engine.decider().components("How are ").parts}
    doc = parts["doc"]
    assert doc.dense[index["How"]] == 0.0 and doc.dense[index["how"]] == pytest.approx(1.0)
    words = [c.text for c in default_engine.decider().decide("How are ", "", 5)]
    assert "How" not in words, words
    # Just written, in either case, it is not offered again: "How how".
    parts = {p.name: p for p in default_engine.decider().components("We met John. How ").parts}
    assert parts["doc"].dense[index["how"]] == 0.0
    assert parts["doc"].dense[index["John"]] > 0.0
    # At a sentence start the capitals count as they are.
    parts = {p.name: p for p in default_engine.decider().components("How nice. ").parts}
    assert parts["doc"].dense[index["How"]] > 0.0
