"""`nextword eval` implements shared/EVAL.md: a smoke run with both baselines."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import FIXTURES, nextword
from nextword.evaluate import Tally, type_document

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


def test_keystroke_accounting_follows_the_protocol():
    """A typist that always offers the right word at the first keystroke saves the most."""
    doc = "the cat sat"

    def oracle(context: str, prefix: str, k: int) -> list[str]:
        words = doc.split()
        return [words[len(context.split())]]

    def blind(context: str, prefix: str, k: int) -> list[str]:
        return []

    tally = Tally()
    type_document(doc, oracle, tally)
    # 3 accepts + 2 spaces typed = 5 keystrokes for 11 characters.
    assert tally.quality()["ksr@1"] == round(1 - 5 / 11, 4)
    assert tally.quality()["top1"] == 1.0
    tally = Tally()
    type_document(doc, blind, tally)
    assert tally.quality()["ksr@5"] == 0.0
