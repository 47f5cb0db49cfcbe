"""Reading a model's phrase thresholds (phrases.json, written by training/phrase_fit.py):
the word-start one, the in-word one, and the files from before the in-word one."""

from __future__ import annotations

import json
from pathlib import Path

from nextword.engine.engine import read_phrase_thresholds


def thresholds(tmp_path: Path, content: object | str) -> tuple[float | None, float | None]:
    path = tmp_path / "phrases.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return read_phrase_thresholds(path)


def test_both_thresholds_are_read(tmp_path: Path):
    fit = {"threshold": -0.93, "in_word": {"threshold": -0.41, "precision": 0.5}}
    assert thresholds(tmp_path, fit) == (-0.93, -0.41)


def test_a_fit_from_before_the_in_word_threshold_uses_its_one_threshold_in_words(tmp_path: Path):
    assert thresholds(tmp_path, {"threshold": -0.93}) == (-0.93, -0.93)


def test_no_threshold_in_words_shows_no_phrase_there(tmp_path: Path):
    # The fit found no threshold reaching the precision in words: none is shown there.
    assert thresholds(tmp_path, {"threshold": -0.93, "in_word": {"threshold": None}}) == (
        -0.93,
        None,
    )


def test_phrases_in_words_only(tmp_path: Path):
    # No threshold reached the precision at word starts; one did in words.
    assert thresholds(tmp_path, {"threshold": None, "in_word": {"threshold": -0.63}}) == (
        None,
        -0.63,
    )


def test_missing_or_unreadable_files_show_no_phrases(tmp_path: Path):
    assert read_phrase_thresholds(tmp_path / "absent.json") == (None, None)
    assert thresholds(tmp_path, "{not json") == (None, None)
    assert thresholds(tmp_path, {"threshold": None}) == (None, None)
    assert thresholds(tmp_path, {"threshold": -0.9, "in_word": {"threshold": "x"}}) == (None, None)
    assert thresholds(tmp_path, [1, 2]) == (None, None)
