"""`nextword eval --typos`: corrupted text, nextword's corrections and the spellers beside it
(docs/EVAL.md, "Typing mistakes and corrections"). hunspell and symspellpy are installed
by scripts/test, so their figures must be there."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import FIXTURES, nextword
from nextword.engine.corrections import COMPARED, DEFAULT_GATE
from nextword.evaluation.spellers import HunspellSpeller, SymSpellSpeller

PROSE = FIXTURES / "eval" / "prose.txt"
KS = (1, 3, 5)


def run_eval(model: Path, *extra: str) -> dict:
    result = nextword("eval", str(PROSE), "--model", str(model), "--json", "--no-progress", *extra)
    return json.loads(result.stdout.strip().splitlines()[-1])


def rates(figures: dict, name: str = "correction") -> list[float]:
    return [figures[f"{name}@{k}"] for k in KS]


def test_eval_with_typos_reports_corrections_and_spellers(tiny_model: Path):
    out = run_eval(tiny_model, "--typos", "0.2", "--typo-seed", "1", "--corrections", "both")
    typos = out["typos"]
    assert (typos["rate"], typos["seed"]) == (0.2, 1)
    assert 25 <= typos["eligible"] <= 40  # the words of 4+ letters in prose.txt
    assert 1 <= typos["corrupted"] <= typos["eligible"] // 2
    assert sum(typos["kinds"].values()) == typos["corrupted"]
    assert typos["kinds"].get("codespell", 0) >= 1  # prose.txt has common words
    off, on = typos["nextword"]["off"], typos["nextword"]["on"]
    for figures in (off, on):
        assert rates(figures) == sorted(rates(figures))
        assert all(0 <= r <= 1 for r in rates(figures) + rates(figures, "before_mistake"))
        assert 0 < figures["ksr@1"] <= figures["ksr@3"] <= figures["ksr@5"] < 1
    # With corrections off a word can only be recovered before its mistake is typed.
    assert rates(off) == rates(off, "before_mistake")
    # With them on, words beyond the lexicon (models/spelling.txt) also complete a
    # prefix no known word starts: the tiny model knows few, so some words come sooner.
    assert all(
        a >= b
        for a, b in zip(rates(on, "before_mistake"), rates(off, "before_mistake"), strict=True)
    )
    assert all(a >= b for a, b in zip(rates(on), rates(off), strict=True))
    # Clean text: the top-level figures are those with corrections off.
    clean = out["corrections"]
    assert set(clean) == {"off", "on", *(f"on@{t:g}" for t in COMPARED)}
    for key in ("ksr@1", "ksr@3", "ksr@5", "top1", "top3"):
        assert clean["off"][key] == out[key]
        assert 0 <= clean["on"][key] <= 1
    spellers = typos["spellers"]
    assert set(spellers) == {"hunspell", "symspell"}, out.get("notes")
    for figures in spellers.values():
        assert rates(figures) == sorted(rates(figures))
        assert rates(figures)[-1] >= 0.5  # common English words, one or two edits away
    assert "notes" not in out


def test_every_word_corrupted_and_the_table(tiny_model: Path):
    out = run_eval(tiny_model, "--typos", "1", "--typo-seed", "3")
    typos = out["typos"]
    assert typos["corrupted"] == typos["eligible"] > 25
    # --typos alone types with corrections off and on, and on at two other thresholds
    # of the gate (the tiny model has no fit: COMPARED), on the same words.
    modes = {"off", "on", *(f"on@{t:g}" for t in COMPARED)}
    assert set(typos["nextword"]) == modes and set(out["corrections"]) == modes
    assert out["corrections"]["off"]["ksr@3"] == out["ksr@3"]
    gate = typos["gate"]
    assert set(gate) == modes - {"off"} and gate["on"]["threshold"] == DEFAULT_GATE
    for mode, figures in gate.items():
        # The clean popups that held a correction, and the misspellings corrected.
        assert figures["inword_corrected"] == out["corrections"][mode]["inword_corrected"]
        assert figures["correction@3"] == typos["nextword"][mode]["correction@3"]
        # The same answers, in the words of the clean text hunspell spells so.
        known = figures["inword_corrected_known"]
        assert known == out["corrections"][mode]["inword_corrected_known"]
        assert 0 <= known <= 1
    # A gate that opens more often shows more corrections on clean text.
    loose, strict = (gate[f"on@{t:g}"]["inword_corrected"] for t in COMPARED)
    assert loose >= gate["on"]["inword_corrected"] >= strict
    # Uncorrected, every mistake costs: a word can only be taken before its mistake.
    # (Corrected, it need not: a correction may come sooner than the completion did.)
    both = run_eval(tiny_model, "--typos", "1", "--typo-seed", "3", "--corrections", "both")
    assert both["typos"]["nextword"]["off"]["ksr@3"] < both["corrections"]["off"]["ksr@3"]
    assert both["typos"]["nextword"]["on"]["ksr@3"] > both["typos"]["nextword"]["off"]["ksr@3"]
    table = nextword(
        "eval", str(PROSE), "--model", str(tiny_model), "--no-progress",
        "--typos", "0.2", "--typo-seed", "1", "--corrections", "both",
    ).stdout  # fmt: skip
    assert "clean text, corrections off: ksr@1" in table
    assert "clean text, corrections on:  ksr@1" in table
    assert "typos at 20% (seed 1):" in table
    for row in ("nextword (off)", "nextword (on)", "hunspell", "symspell"):
        assert f"    {row}" in table, table
    assert "correction gate (threshold" in table and "(on@0.9)" in table


def test_the_bundled_model_corrects_what_prediction_alone_misses():
    result = nextword(
        "eval", str(PROSE), "--json", "--no-progress", "--typos", "1", "--typo-seed", "1",
        "--corrections", "both",
    )  # fmt: skip
    out = json.loads(result.stdout.strip().splitlines()[-1])
    off, on = out["typos"]["nextword"]["off"], out["typos"]["nextword"]["on"]
    assert on["correction@3"] >= off["correction@3"] + 0.1, (on, off)
    assert on["ksr@3"] > off["ksr@3"]


def test_without_typos_nothing_new_is_reported(tiny_model: Path):
    out = run_eval(tiny_model)
    assert "typos" not in out and "corrections" not in out


def test_eval_refuses_bad_typo_options(tiny_model: Path):
    for args, message in (
        (("--typos", "0"), "--typos takes a share in (0, 1]"),
        (("--typos", "1.5"), "--typos takes a share in (0, 1]"),
        (("--typo-seed", "2"), "--typo-seed goes with --typos"),
    ):
        result = nextword("eval", str(PROSE), "--no-progress", *args, check=False)
        assert result.returncode == 1 and message in result.stderr, result.stderr
        assert result.stdout == ""


def test_hunspell_speaks_the_pipe_protocol():
    with HunspellSpeller() as hunspell:
        assert hunspell.suggest("recieve", 3)[0] == "receive"
        assert hunspell.suggest("Recieve", 3)[0] == "Receive"
        assert hunspell.suggest("receive", 3) == []  # correct: no suggestions
        assert hunspell.suggest("xqzvj", 3) == []  # "#": none found
        # Lines starting with ispell commands are escaped: "*word" would add a word.
        assert hunspell.suggest("*recieve", 5) == hunspell.suggest("recieve", 5)
        assert hunspell.suggest("recieve", 5)[0] == "receive"  # still answering in step
        assert hunspell.knows("receive") and hunspell.knows("Receive")
        assert hunspell.knows("receives")  # "+ receive": a form of a root
        assert not hunspell.knows("recieve") and not hunspell.knows("xqzvj")
        assert hunspell.suggest("recieve", 1) == ["receive"]  # still in step


def test_symspell_suggests_nearest_then_most_frequent_in_the_typed_case():
    symspell = SymSpellSpeller()
    assert symspell.suggest("teh", 1) == ["the"]
    assert symspell.suggest("Adress", 2)[0] == "Address"
    assert symspell.suggest("UNTILL", 1) == ["UNTIL"]
    assert len(symspell.suggest("recieve", 5)) == 5
