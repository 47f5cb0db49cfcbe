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
