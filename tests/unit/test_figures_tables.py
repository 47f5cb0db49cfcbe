"""What `nextword figures` decides without running anything: the command that prepares
what the corpus lacks (commands/prepare_corpus.py, which eval's messages name too) and
the marked blocks it rewrites (evaluation/figures.py). The whole pipeline:
tests/engine/test_figures.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from nextword.commands.prepare_corpus import command_for
from nextword.evaluation.figures import check_blocks, replace_block


def test_the_command_prepares_the_languages_of_what_is_missing() -> None:
    corpus = Path("data/corpus")
    assert command_for(["email", "chat"], corpus) == ["nextword", "prepare-corpus"]
    assert command_for(["peoples_daily"], corpus) == ["nextword", "prepare-corpus", "--lang", "zh"]
    both = command_for(["hsk", "wiki"], Path("/tmp/c"))
    assert both == ["nextword", "prepare-corpus", "--lang", "all", "--out", "/tmp/c"]
    assert command_for(["email", "my-own-text"], corpus) is None


def test_a_block_is_replaced_and_the_prose_around_it_kept() -> None:
    page = "intro\n<!-- t -->\nold\nrows\n<!-- /t -->\noutro\n"
    assert replace_block(page, "t", ["| new |"], page="P") == (
        "intro\n<!-- t -->\n| new |\n<!-- /t -->\noutro\n"
    )
    with pytest.raises(ValueError, match="P should hold the <!-- u --> markers once"):
        replace_block(page, "u", [], page="P")
    with pytest.raises(ValueError, match="markers once"):
        replace_block(page + page, "t", [], page="P")


def test_pages_are_checked_before_anything_runs(tmp_path: Path) -> None:
    page = tmp_path / "FIGURES.md"
    page.write_text("<!-- a -->\n<!-- /a -->\n")
    check_blocks(page, ["a"])
    with pytest.raises(ValueError, match="<!-- b -->"):
        check_blocks(page, ["a", "b"])
    with pytest.raises(OSError):
        check_blocks(tmp_path / "missing.md", ["a"])


def test_the_corrections_tables_split_the_clean_share_by_hunspells_words() -> None:
    from nextword.evaluation.figures import corrections_headline, gate_table

    gate = {"threshold": 0.29, "inword_corrected": 0.022, "inword_corrected_known": 0.003}
    result = {
        "file": "data/corpus/dev/email.txt",
        "typos": {
            "nextword": {"on": {"correction@3": 0.969}},
            "spellers": {"hunspell": {"correction@3": 0.79}, "symspell": {"correction@3": 0.876}},
            "gate": {"on": {**gate, "correction@1": 0.938, "correction@3": 0.969}},
        },
    }
    head, _, row = corrections_headline([result])  # type: ignore[list-item]
    assert head.endswith("| clean in-word answers with a correction | in words hunspell knows |")
    assert row.endswith("| **0.969** | 0.790 | 0.876 | 2.20% | 0.30% |")
    assert gate_table([result])[-1].endswith("| 0.29 (fitted) | 2.20% | 0.30% | 0.938 | 0.969 |")
    # Without hunspell (an older run, or none installed), a dash.
    del result["typos"]["gate"]["on"]["inword_corrected_known"]  # type: ignore[index]
    assert corrections_headline([result])[-1].endswith("| 2.20% | - |")  # type: ignore[list-item]
