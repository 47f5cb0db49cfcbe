"""`nextword predict` as a user reads it: ordered, aligned, honest figures (issue 13)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from helpers import ROOT, nextword
from nextword.engine.words import display_width

ROW = re.compile(r"^(\d+)\. (.*?) +(\S+)%(?:  \(correction\))?$")


def rows(stdout: str) -> list[tuple[str, float, int]]:
    """(word, percent, column where the percent ends) of each printed candidate."""
    out = []
    for line in stdout.splitlines():
        m = ROW.match(line)
        if m:
            out.append((m.group(2), float(m.group(3)), display_width(line)))
    return out


def test_candidates_print_in_the_order_of_their_probabilities() -> None:
    for text in ("今天天气真", "I think th", "Thank you for your "):
        found = rows(nextword("predict", text).stdout)
        assert len(found) == 5, text
        percents = [p for _, p, _ in found]
        assert percents == sorted(percents, reverse=True), (text, found)


def test_columns_align_for_wide_characters() -> None:
    found = rows(nextword("predict", "今天天气真").stdout)
    assert any(display_width(word) > len(word) for word, _, _ in found)  # Han words
    assert len({end for _, _, end in found}) == 1, found


def test_a_word_typed_in_full_that_nothing_likely_extends_says_so() -> None:
    out = nextword("predict", "Are you free this").stdout
    assert "'this' is likely the whole word" in out and not rows(out)


def test_a_spelled_out_word_shows_its_real_share() -> None:
    # Corrections off, as in code: the words of general English (Zephyr) stay out, and
    # the model spells out words for a prefix its word list lacks.
    off = ("--corrections", "off")
    out = json.loads(nextword("predict", "Status of the Zeph", "--json", *off).stdout)
    assert out["candidates"], out
    assert all(c["text"].startswith("Zeph") for c in out["candidates"])
    # Only part of what the model gives "Zeph" was spelled out: no word has it all.
    assert all(c["prob"] < 0.5 for c in out["candidates"]), out
    line = nextword("predict", "Status of the Zeph", *off).stdout.splitlines()[0]
    assert "100.00%" not in line and "0.00%" not in line, line


def test_a_misspelled_prefix_gets_its_correction_marked() -> None:
    found = nextword("predict", "Please send it to the adress").stdout.splitlines()
    assert found[0].startswith("1. address") and found[0].endswith("(correction)"), found
    out = json.loads(nextword("predict", "Please send it to the adress", "--json").stdout)
    assert out["candidates"][0] == {**out["candidates"][0], "text": "address", "correction": True}
    off = nextword("predict", "Please send it to the adress", "--json", "--corrections", "off")
    assert all(not c["correction"] for c in json.loads(off.stdout)["candidates"])


def test_a_file_given_as_the_model_is_named_for_what_it_is() -> None:
    done = nextword("predict", "x", "--model", str(ROOT / "README.md"), check=False)
    assert done.returncode == 1
    assert "is a file, not a directory" in done.stderr


def test_predict_can_use_what_learn_stored(tmp_path: Path) -> None:
    env = {**os.environ, "NEXTWORD_DATA_DIR": str(tmp_path / "data")}
    text = tmp_path / "notes.txt"
    text.write_text("We met at Quxleybrook station. " * 30)

    def candidates(*flags: str) -> list[str]:
        done = nextword("predict", "We met at Qux", "--json", *flags, env=env)
        return [c["text"] for c in json.loads(done.stdout)["candidates"]]

    assert "Quxleybrook" not in candidates()
    nextword("learn", str(text), env=env)
    assert candidates("--learned")[0] == "Quxleybrook"
    assert "Quxleybrook" not in candidates()  # only with the flag
    done = nextword("predict", "x", "--workspace", str(tmp_path), env=env, check=False)
    assert done.returncode == 1 and "--workspace goes with --learned" in done.stderr
