"""`nextword eval` implements docs/EVAL.md: smoke runs with both baselines, on English
(the tiny model), on Chinese text and on mixed Chinese/English text (the bundled model).
The typist's arithmetic: tests/unit/test_typist.py."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

from helpers import FIXTURES, nextword
from nextword.data.corpus import SOURCES
from nextword.data.documents import chinese_spans, read_documents
from nextword.engine.words import WORD_RE, is_han

ZH = FIXTURES / "eval-zh"
QUALITY = ("ksr@1", "ksr@3", "ksr@5", "top1", "top3", "mrr@5")


def run_eval(model: Path, *files: Path, extra: tuple[str, ...] = ()) -> dict:
    result = nextword(
        "eval", *map(str, files), "--model", str(model), "--json", "--no-progress",
        "--train", str(FIXTURES / "corpus-tiny" / "train" / "tiny.txt"), *extra,
    )  # fmt: skip
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_eval_json_has_the_protocol_keys(tiny_model: Path, tmp_path: Path):
    plot = tmp_path / "eval.png"
    out = run_eval(
        tiny_model,
        FIXTURES / "eval" / "prose.txt",
        extra=("--baseline", "unigram,presage", "--plot", str(plot)),
    )
    assert out["file"].endswith("prose.txt") and out["words"] > 50
    for key in QUALITY:
        assert 0 <= out[key] <= 1
        assert 0 <= out["baselines"]["unigram"][key] <= 1
        assert 0 <= out["baselines"]["presage"][key] <= 1
    assert out["ksr@1"] <= out["ksr@3"] <= out["ksr@5"]
    for part in ("boundary", "inword"):
        assert out["latency_ms"][part]["p50"] <= out["latency_ms"][part]["p99"]
    # nextword refines its decisions between keys (engine/refine.py), timed apart.
    assert out["latency_ms"]["between_keys"]["p50"] > 0
    assert "between_keys" not in out["baselines"]["unigram"]["latency_ms"]
    assert out["backend"].startswith("cpu+")
    assert plot.stat().st_size > 10_000


def test_eval_survives_invalid_utf8(tiny_model: Path):
    out = run_eval(tiny_model, FIXTURES / "eval" / "invalid-utf8.txt")
    assert out["words"] > 0 and out["invalid_utf8_replaced"] >= 3


def test_eval_of_two_files_prints_a_list(tiny_model: Path):
    path = FIXTURES / "eval" / "prose.txt"
    out = run_eval(tiny_model, path, path)
    assert isinstance(out, list) and len(out) == 2


def test_eval_rejects_a_missing_file(tiny_model: Path, tmp_path: Path):
    result = nextword("eval", str(tmp_path / "none.txt"), check=False)
    assert result.returncode == 1 and "no such file" in result.stderr


def refusal(*args: str) -> str:
    """Run eval, which must refuse at once: exit 1, one line on stderr, nothing typed."""
    result = nextword("eval", *args, "--no-progress", check=False)
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]


def test_eval_scores_everyday_openings_beside_the_baselines(tmp_path: Path):
    """Each opening typed into a new document with the bundled model: a hit when its top
    five hold an accepted word; the misses are listed with what was offered."""
    openings = tmp_path / "openings.tsv"
    openings.write_text(
        "See you\tlater soon tomorrow then there again\n"
        "Qzxv wubble\tflorp\n"
        "\n"
        "I hope you have a great\tDAY weekend time week\n",
        encoding="utf-8",
    )
    result = nextword(
        "eval", "--openings", str(openings), "--baseline", "unigram,presage",
        "--train", str(FIXTURES / "corpus-tiny" / "train" / "tiny.txt"), "--json",
    )  # fmt: skip
    out = json.loads(result.stdout.strip().splitlines()[-1])["openings"]
    assert set(out) == {"nextword", "unigram", "presage"}
    ours = out["nextword"]
    assert (ours["openings"], ours["hits"], ours["k"]) == (3, 2, 5)  # accepted in any case
    assert ours["accepted"] >= 2 and 0.4 < ours["mrr"] <= round(2 / 3, 4)
    assert len(ours["misses"]) == 1 and ours["misses"][0].startswith("Qzxv wubble -> ")
    assert all(out[name]["openings"] == 3 for name in ("unigram", "presage"))
    table = nextword("eval", "--openings", str(openings)).stdout
    assert re.search(r"^nextword +2/3 +0\.667 ", table, re.MULTILINE), table


def test_eval_refuses_an_openings_file_it_cannot_read(tmp_path: Path):
    bad = tmp_path / "openings.tsv"
    bad.write_text("See you\tlater\nno tab here\n", encoding="utf-8")
    assert f"{bad}:2: expected an opening, a tab and the accepted words" in refusal(
        "--openings", str(bad)
    )
    assert "name held-out files to type, or --openings" in refusal()
    assert f"cannot read openings from {tmp_path / 'none.tsv'}" in refusal(
        "--openings", str(tmp_path / "none.tsv")
    )


def test_eval_refuses_what_is_not_text(tmp_path: Path):
    assert "is not text (binary data)" in refusal("/bin/ls")
    assert "is a directory" in refusal(str(tmp_path))
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    assert "has no words to type" in refusal(str(empty))
    blank = tmp_path / "blank.txt"
    blank.write_text("\n \f\n  ...  \n")
    assert "has no words to type" in refusal(str(blank))
    noise = tmp_path / "noise.dat"  # no NUL byte, but no UTF-8 either
    noise.write_bytes(bytes(range(128, 256)) * 40 + b" the end")
    assert "is not UTF-8 text" in refusal(str(noise))


def test_eval_checks_for_matplotlib_before_running(tmp_path: Path):
    """Without matplotlib, --plot fails before the run, not after it."""
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "matplotlib.py").write_text("raise ImportError('not installed')\n")
    env = {**os.environ, "PYTHONPATH": str(shadow)}
    result = nextword(
        "eval", str(FIXTURES / "eval" / "prose.txt"), "--plot", str(tmp_path / "p.png"),
        check=False, env=env,
    )  # fmt: skip
    assert result.returncode == 1
    assert "--plot needs matplotlib: pip install 'nextword[plot]'" in result.stderr
    assert result.stdout == ""


def test_eval_command_on_chinese_text():
    result = nextword(
        "eval", str(ZH / "news.txt"), "--baseline", "unigram,presage",
        "--train", str(ZH / "train.txt"), "--json", "--no-progress",
    )  # fmt: skip
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["unit"] == "character-continuation"
    assert out["words"] == sum(is_han(c) for c in (ZH / "news.txt").read_text("utf-8"))
    for q in (out, out["baselines"]["unigram"], out["baselines"]["presage"]):
        assert 0 <= q["ksr@1"] <= q["ksr@3"] <= q["ksr@5"] <= 1
        assert 0 <= q["nextchar_top1"] <= q["nextchar_top3"] <= 1
    presage = out["baselines"]["presage"]
    assert presage["nextchar_top3"] > out["baselines"]["unigram"]["nextchar_top3"] > 0


def test_eval_types_a_mixed_document_span_by_span():
    """Chinese technical text with commands and paths in it, and English text with
    Chinese sentences: each Chinese span typed by character continuations, the rest by
    the word typist, both parts reported (for the baseline too)."""
    path = FIXTURES / "mixed-zh-en.txt"
    result = nextword(
        "eval", str(path), "--baseline", "unigram", "--train", str(ZH / "train.txt"),
        "--json", "--no-progress",
    )  # fmt: skip
    out = json.loads(result.stdout.strip().splitlines()[-1])
    docs, _ = read_documents(path)
    spans = [(doc, start, end) for doc in docs for start, end, zh in chinese_spans(doc) if not zh]
    words = sum(len(WORD_RE.findall(doc, start, end)) for doc, start, end in spans)
    han = sum(is_han(c) for doc in docs for c in doc)
    assert out["unit"] == "mixed" and out["words"] == words + han
    for q in (out, out["baselines"]["unigram"]):
        word, chinese = q["parts"]["word"], q["parts"]["chinese"]
        assert (word["unit"], word["words"]) == ("word", words)
        assert (chinese["unit"], chinese["words"]) == ("character-continuation", han)
        assert word["characters"] + chinese["characters"] == out["characters"]
        for part in (word, chinese):
            assert 0 <= part["ksr@1"] <= part["ksr@3"] <= part["ksr@5"] <= 1
        assert "nextchar_top1" not in word and 0 <= chinese["nextchar_top3"] <= 1
    # Each part is served by a model of its script (the router): both offer something.
    assert out["parts"]["word"]["top3"] > 0 and out["parts"]["chinese"]["nextchar_top3"] > 0


def english_corpus(tmp_path: Path) -> Path:
    """What the default `nextword prepare-corpus` leaves: the fixture corpus less its
    Chinese sources, at ./data/corpus of `tmp_path`."""
    corpus = tmp_path / "data" / "corpus"
    shutil.copytree(FIXTURES / "figures-corpus", corpus)
    for split in ("train", "dev"):
        for source in SOURCES:
            if source.lang == "zh":
                (corpus / split / f"{source.id}.txt").unlink(missing_ok=True)
    return corpus


def test_english_baselines_need_no_chinese_corpus(tmp_path: Path):
    """Issue 36: after the default prepare-corpus (English), both baselines run on an
    English file; a Chinese file names the command that prepares its baselines' text."""
    english_corpus(tmp_path)
    email = FIXTURES / "figures-corpus" / "dev" / "email.txt"
    args = ("--baseline", "unigram,presage", "--json", "--no-progress")
    done = nextword("eval", str(email), *args, cwd=tmp_path)
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert set(out["baselines"]) == {"unigram", "presage"}
    assert out["baselines"]["presage"]["ksr@3"] > 0

    news = FIXTURES / "figures-corpus" / "dev" / "peoples_daily.txt"
    done = nextword("eval", str(news), *args, cwd=tmp_path, check=False)
    assert done.returncode == 1 and done.stdout == ""
    assert "data/corpus/train/peoples_daily.txt" in done.stderr
    assert "run `nextword prepare-corpus --lang zh` or pass --train FILE..." in done.stderr


def test_eval_progress_counts_words_for_every_engine(tiny_model: Path):
    """Issue 32: the bar of each engine, Presage's included, counts the file's words."""
    path = FIXTURES / "eval" / "prose.txt"
    result = nextword(
        "eval", str(path), "--model", str(tiny_model), "--json", "--baseline", "unigram,presage",
        "--train", str(FIXTURES / "corpus-tiny" / "train" / "tiny.txt"),
    )  # fmt: skip
    words = json.loads(result.stdout.strip().splitlines()[-1])["words"]
    for engine in ("nextword", "unigram", "presage"):
        bar = re.findall(rf"prose\.txt \[{engine}\]:[^\r\n]*", result.stderr)
        assert bar and f"{words}/{words} " in bar[-1] and "word/s" in bar[-1], result.stderr
