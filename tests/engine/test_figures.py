"""`nextword figures` end to end (issue 36): every step on the fixture corpus in
prepare-corpus's layout (fixtures/figures-corpus, English and Chinese), the bundled
models copied so their cards can be rewritten, and copies of README.md and
docs/FIGURES.md, so a missing file, marker or JSON field fails here rather than for a
reader. The word budgets are small; the bench types a one-line text."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from helpers import FIXTURES, ROOT, nextword
from nextword.evaluation.figures import CHINESE_SPLITS, GENRES, TYPO_GENRES

MODELS = ROOT / "server" / "nextword" / "models"
BLOCK = re.compile(r"<!-- ([\w-]+) -->\n.*?<!-- /\1 -->", flags=re.S)


def outside_blocks(text: str) -> str:
    """The page less what its blocks hold: the prose written by hand."""
    return re.sub(r"(<!-- ([\w-]+) -->).*?(<!-- /\2 -->)", r"\1\3", text, flags=re.S)


def block(text: str, name: str) -> str:
    return text.split(f"<!-- {name} -->\n", 1)[1].split(f"<!-- /{name} -->", 1)[0]


def test_figures_regenerates_every_table_from_a_corpus(tmp_path: Path) -> None:
    for lang in ("en", "zh"):
        shutil.copytree(MODELS / lang, tmp_path / lang)
    (tmp_path / "docs").mkdir()
    readme, page = tmp_path / "README.md", tmp_path / "docs" / "FIGURES.md"
    shutil.copy(ROOT / "README.md", readme)
    shutil.copy(ROOT / "docs" / "FIGURES.md", page)
    out = tmp_path / "runs"
    done = nextword(
        "figures", "--corpus", str(FIXTURES / "figures-corpus"),
        "--model", str(tmp_path / "en"), "--chinese-model", str(tmp_path / "zh"),
        "--words", "20", "--doc-words", "10", "--typo-words", "30", "--chars", "20",
        "--hsk-chars", "20", "--bench-text", str(FIXTURES / "bench-short.txt"),
        "--out", str(out), "--readme", str(readme), "--figures-page", str(page),
    )  # fmt: skip

    # Progress: every step numbered before it runs, and timed when done.
    steps = re.findall(r"^\[(\d+)/(\d+)\] .*: done in \d+ s$", done.stderr, flags=re.M)
    assert steps and len(steps) == int(steps[0][1]), done.stderr
    assert "prepare the corpus" not in done.stderr  # the fixture has every file
    assert json.loads((out / "timings.json").read_text())["total_s"] > 0

    # The pages: the hand-written prose kept, every block filled.
    for path, original in ((readme, ROOT / "README.md"), (page, ROOT / "docs" / "FIGURES.md")):
        assert outside_blocks(path.read_text()) == outside_blocks(original.read_text())
    text = page.read_text()
    names = set(BLOCK.findall(text))
    assert {"running-time", "quality-table", "chinese-table", "bench-table"} <= names
    doctor = json.loads((out / "doctor.json").read_text())
    for name in names:
        body = block(text, name)
        if name.startswith("machine"):
            assert doctor["blas"]["name"] in body and doctor["backend"] in body, body
        else:
            rows = [line for line in body.splitlines() if line.startswith("| ")]
            assert len(rows) >= 3, (name, body)
    for split in GENRES.values():
        assert f"| {split} | 20 | **nextword** |" in block(text, "quality-table")
    assert "| casual chat (chitchat-dataset) |" in block(text, "short-documents-table")
    for split in CHINESE_SPLITS.values():
        assert f"| {split} | 20 | **nextword** |" in block(text, "chinese-table")
    assert "symspell" in block(text, "corrections-table")
    openings = block(text, "openings-table")  # the bundled 229, beside both baselines
    assert re.search(r"^\| \*\*nextword\*\* \| \d+ / 229 \|", openings, re.M), openings
    assert "| Presage | " in openings and "| unigram | " in openings

    headline = block(readme.read_text(), "headline-table")
    for split in [*GENRES.values(), *CHINESE_SPLITS.values()]:
        assert f"| {split} | **" in headline
    bench = json.loads((out / "bench-10.json").read_text())
    assert f"peak RSS {bench['peak_rss_mb']:.0f} MB" in headline
    assert doctor["backend"] in headline
    assert re.search(
        r"On 229 everyday openings, .* for \d+ \(nextword\) and \d+ \(Presage\)", headline
    )
    fixes = block(readme.read_text(), "corrections-headline")
    assert "correction@3 symspell" in fixes and "clean in-word answers" in fixes
    for split in TYPO_GENRES:
        assert f"| {GENRES[split]} | **" in fixes

    # The model cards, from the same results.
    quality = json.loads((tmp_path / "en" / "eval.json").read_text())
    assert [Path(r["file"]).stem for r in quality] == list(GENRES)
    assert "| chat | 20 | nextword |" in (tmp_path / "en" / "README.md").read_text()
    assert "| hsk | 20 | nextword |" in (tmp_path / "zh" / "README.md").read_text()


def test_figures_checks_its_pages_before_measuring(tmp_path: Path) -> None:
    page = tmp_path / "FIGURES.md"
    page.write_text("<!-- running-time -->\n<!-- /running-time -->\n")
    done = nextword(
        "figures", "--lang", "zh", "--corpus", str(FIXTURES / "figures-corpus"),
        "--out", str(tmp_path / "runs"), "--figures-page", str(page), check=False,
    )  # fmt: skip
    assert done.returncode == 1
    assert "should hold the <!-- machine-zh --> markers once" in done.stderr
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())
