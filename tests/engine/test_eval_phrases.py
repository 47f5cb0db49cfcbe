"""`nextword eval --phrases` (docs/EVAL.md, "Phrases"), through the command, on the
bundled model: with its fitted thresholds, and with one that shows every phrase of two
words or more (`--phrase-threshold`), so that phrases are shown and accepted whatever
the model. The metrics' arithmetic and the threshold fit:
tests/unit/test_phrase_metrics.py."""

from __future__ import annotations

import json

from helpers import FIXTURES, nextword
from nextword.engine.loader import DEFAULT_MODEL

PROSE = FIXTURES / "eval" / "prose.txt"
KS = (1, 3, 5)


def run_eval(*extra: str) -> dict:
    result = nextword("eval", str(PROSE), "--json", "--no-progress", *extra)
    return json.loads(result.stdout.strip().splitlines()[-1])


def check_block(out: dict) -> dict:
    """The block's own arithmetic, which holds for any model and threshold."""
    block = out["phrases"]
    assert block["max_words"] == 4
    assert block["boundaries"] == out["words"]  # every word start of the text
    assert block["coverage"] == round(block["shown"] / block["boundaries"], 4)
    at_least = [block["shown_at_least"][str(n)] for n in range(1, 6)]
    assert at_least[0] == at_least[1] == block["shown"]  # shown phrases have 2+ words
    assert at_least == sorted(at_least, reverse=True) and at_least[4] == 0
    for n, total in enumerate(at_least, 1):
        rate = block[f"exact_match@{n}"]
        assert (rate is None) == (total == 0)
        assert rate is None or 0 <= rate <= 1
    assert 0 <= block["ksr@1"] <= block["ksr@3"] <= block["ksr@5"] < 1
    for k in KS:
        assert block[f"word_ksr@{k}"] == out[f"ksr@{k}"]  # the same text's word-only KSR
    latency = block["latency_ms"]
    assert 0 < latency["p50"] <= latency["p95"] <= latency["p99"]
    inside = block["in_word"]  # the words typed rather than taken from a phrase
    assert inside["words"] == out["words"] - block["accepted_words"]
    assert inside["shown"] <= inside["words"]
    assert inside["coverage"] == round(inside["shown"] / inside["words"], 4)
    assert inside["exact_match@2"] >= 0 and 0 <= inside["precision"] <= 1
    return block


def test_phrases_leave_the_main_figures_alone():
    plain = run_eval()
    out = run_eval("--phrases")
    assert "phrases" not in plain
    for key, value in plain.items():
        if key != "latency_ms":
            assert out[key] == value, key
    block = check_block(out)
    fitted = json.loads((DEFAULT_MODEL / "phrases.json").read_text(encoding="utf-8"))
    assert block["threshold"] == fitted["threshold"]
    assert block["in_word_threshold"] == fitted["in_word"]["threshold"]
    # Asking for phrases must not cost the typist between them.
    assert block["ksr@1"] >= out["ksr@1"] - 0.01


def test_a_threshold_given_on_the_command_line_shows_phrases_in_words_too():
    out = run_eval("--phrases", "--phrase-threshold", "-100")
    block = check_block(out)
    assert block["threshold"] == block["in_word_threshold"] == -100
    assert block["shown"] >= block["boundaries"] // 5  # two-word phrases are common
    assert 2 <= block["mean_words"] <= 4
    # A shown phrase starts with the first candidate, which is right at times.
    assert block["exact_match@1"] > 0 and block["accepted_words"] > 0
    # A word guessed on the way gets its phrase (5 of the 60 typed here).
    assert block["in_word"]["shown"] > 0


def test_a_phrase_threshold_without_phrases_is_a_usage_error():
    result = nextword("eval", str(PROSE), "--phrase-threshold", "-1", check=False)
    assert result.returncode != 0
    assert "--phrase-threshold goes with --phrases" in result.stderr
