"""The published figures as Markdown: tables written from the JSON that `nextword eval`,
`nextword bench` and `nextword doctor` print, and the marked blocks of the pages that
quote them.

A block sits between `<!-- NAME -->` and `<!-- /NAME -->` in README.md or
docs/FIGURES.md; `replace_block` rewrites what is between, so the prose around a table
stays as written. `nextword figures` (commands/figures.py) runs the measurements and
calls these; a test runs the whole on a fixture corpus, so a field renamed in a
command's JSON fails there.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# The English dev splits the figures type, in the tables' order and by their names there.
GENRES = {
    "email": "everyday email (SpamAssassin easy-ham)",
    "chat": "casual chat (chitchat-dataset)",
    # The same conversations as typed ("im", "dont"), as held-out chat is: the model and
    # the tables were trained on them in the standard spelling (data/corpus.py's TYPED).
    "chat-typed": "casual chat as typed (chitchat-dataset)",
    "sotu": "speeches (State of the Union)",
    "wiki": "modern English prose (Wikipedia)",
    "pydocs": "technical prose (Python docs)",
    "pystdlib": "Python code (stdlib)",
}
# The splits the typing-mistake figures corrupt (issue 16: prose of three kinds).
TYPO_GENRES = ("email", "sotu", "wiki")
CHINESE_SPLITS = {"peoples_daily": "news (People's Daily)", "hsk": "everyday (HSK sentences)"}
QUALITY_KEYS = ("ksr@1", "ksr@3", "ksr@5", "top1", "top3", "mrr@5")

Result = dict[str, Any]


def split_name(result: Result) -> str:
    """The table name of the dev split an eval result is of (its file's stem)."""
    stem = Path(result["file"]).stem
    return GENRES.get(stem) or CHINESE_SPLITS.get(stem) or stem


def _cells(values: Sequence[float], digits: int = 3) -> str:
    return " | ".join(f"{v:.{digits}f}" for v in values)


def quality_table(results: list[Result]) -> list[str]:
    """nextword beside Presage and the unigram on each English dev split."""
    rows = [
        "| dev split | words | engine | KSR@1 | KSR@3 | KSR@5 | top-1 | top-3 | MRR@5 "
        "| diversity@3 |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in results:
        engines = [("**nextword**", r), ("Presage", r["baselines"].get("presage"))]
        engines.append(("unigram", r["baselines"].get("unigram")))
        for name, q in engines:
            if q is not None:
                cells = _cells([q[k] for k in QUALITY_KEYS])
                rows.append(
                    f"| {split_name(r)} | {r['words']:,} | {name} | {cells} "
                    f"| {q['diversity@3']:.2f} |"
                )
    return rows


def short_documents_table(shipped: list[Result], fixed: list[Result]) -> list[str]:
    """The first words of every document, the caches' weight growing with the document's
    length (as shipped) and fixed (the earlier models' rule)."""
    rows = [
        "| dev split (first words of each document) | words | cache weight | KSR@3 | top-3 |",
        "| --- | --- | --- | --- | --- |",
    ]
    for grows, stays in zip(shipped, fixed, strict=True):
        for q, label in ((grows, "grows with length (shipped)"), (stays, "fixed (before)")):
            rows.append(
                f"| {split_name(q)} | {q['words']:,} | {label} | {q['ksr@3']:.3f} "
                f"| {q['top3']:.3f} |"
            )
    return rows


def openings_table(result: Result) -> list[str]:
    """The everyday openings (`nextword eval --openings`): nextword, Presage, the unigram."""
    rows = [
        "| engine | openings with an accepted word in the top 5 | accepted words in all | MRR |",
        "| --- | --- | --- | --- |",
    ]
    names = {"nextword": "**nextword**", "presage": "Presage", "unigram": "unigram"}
    for key, name in names.items():
        q = result["openings"].get(key)
        if q is not None:
            rows.append(
                f"| {name} | {q['hits']} / {q['openings']} | {q['accepted']} | {q['mrr']:.3f} |"
            )
    return rows


def corrections_tables(results: list[Result]) -> tuple[list[str], list[str]]:
    """Corrupted words offered back (nextword with corrections on and off, the spellers),
    and clean text with corrections off and on."""
    offered = [
        "| dev split | corrupted words | engine | correction@1 | correction@3 | correction@5 |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    clean = [
        "| dev split | words | corrections | KSR@3 | top-3 | in-word p50 ms | boundary p50 ms |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in results:
        t = r["typos"]
        engines = [
            ("**nextword**, corrections on", t["nextword"]["on"]),
            ("nextword, corrections off", t["nextword"]["off"]),
            *sorted(t["spellers"].items()),
        ]
        for name, q in engines:
            cells = _cells([q[f"correction@{k}"] for k in (1, 3, 5)])
            offered.append(f"| {split_name(r)} | {t['corrupted']} | {name} | {cells} |")
        for mode in ("off", "on"):
            q = r["corrections"][mode]
            lat = q.get("latency_ms", r["latency_ms"])
            clean.append(
                f"| {split_name(r)} | {r['words']:,} | {mode} | {q['ksr@3']:.3f} "
                f"| {q['top3']:.3f} | {lat['inword']['p50']:.2f} | {lat['boundary']['p50']:.2f} |"
            )
    return offered, clean


def corrections_headline(results: list[Result]) -> list[str]:
    """The README's corrections table: per split, the misspelled words offered back in
    the top 3 by nextword (corrections on) and by the spellers, and the share of clean
    in-word answers that held a correction (the fitted gate), in all words and in the
    words hunspell spells so."""
    spellers = sorted({name for r in results for name in r["typos"]["spellers"]})
    rows = [
        "| dev split | correction@3 nextword | "
        + " | ".join(f"correction@3 {name}" for name in spellers)
        + " | clean in-word answers with a correction | in words hunspell knows |",
        "| --- | --- | " + "--- | " * len(spellers) + "--- | --- |",
    ]
    for r in results:
        t = r["typos"]
        theirs = [t["spellers"].get(name, {}).get("correction@3") for name in spellers]
        cells = " | ".join("-" if v is None else f"{v:.3f}" for v in theirs)
        gate = t.get("gate", {}).get("on", {})
        shares = [gate.get(key) for key in ("inword_corrected", "inword_corrected_known")]
        clean = " | ".join("-" if v is None else f"{v:.2%}" for v in shares)
        rows.append(
            f"| {split_name(r)} | **{t['nextword']['on']['correction@3']:.3f}** | {cells} "
            f"| {clean} |"
        )
    return rows


def gate_table(results: list[Result]) -> list[str]:
    """The correction gate's trade-off, on the same words: per split and threshold, the
    clean text's in-word answers that held a correction and the misspellings offered back."""
    rows = [
        "| dev split | gate threshold | clean in-word answers with a correction "
        "| of them in words hunspell knows | correction@1 | correction@3 |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for r in results:
        for mode, g in r["typos"].get("gate", {}).items():
            label = f"{g['threshold']:g}" + (" (fitted)" if mode == "on" else "")
            known = g.get("inword_corrected_known")
            rows.append(
                f"| {split_name(r)} | {label} | {g['inword_corrected']:.2%} "
                f"| {'-' if known is None else f'{known:.2%}'} "
                f"| {g['correction@1']:.3f} | {g['correction@3']:.3f} |"
            )
    return rows


def latency_table(results: list[Result]) -> list[str]:
    """nextword's decision latency in the quality runs, at word boundaries and in words."""
    rows = [
        "| dev split | boundary p50 / p95 / p99 ms | in-word p50 / p95 / p99 ms |",
        "| --- | --- | --- |",
    ]
    for r in results:
        at = r["latency_ms"]
        cells = [
            " / ".join(f"{at[where][p]:.2f}" for p in ("p50", "p95", "p99"))
            for where in ("boundary", "inword")
        ]
        rows.append(f"| {split_name(r)} | {cells[0]} | {cells[1]} |")
    return rows


def bench_table(runs: list[tuple[str, Result]]) -> list[str]:
    """`nextword bench` runs: the editor's round trip, the server's own time, memory."""
    rows = [
        "| run | round trip p50 / p95 / p99 | at word boundaries p50 / p99 | inside words "
        "p50 / p99 | server's own time p50 / p99 | boundaries decided ahead | CPU per key "
        "| peak RSS | cold start to first completion |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for label, b in runs:
        rt, at, inside, own = (
            b["round_trip_ms"],
            b["round_trip_ms_boundary"],
            b["round_trip_ms_inword"],
            b["server_latency_ms"],
        )
        cells = [
            f"{rt['p50']:.2f} / {rt['p95']:.1f} / {rt['p99']:.1f} ms",
            f"{at['p50']:.1f} / {at['p99']:.1f} ms",
            f"{inside['p50']:.2f} / {inside['p99']:.1f} ms",
            f"{own['p50']:.2f} / {own['p99']:.1f} ms",
            f"{b['share_ahead']:.0%}",
            f"{b['cpu_ms_per_key']:.1f} ms",
            f"{b['peak_rss_mb']:.0f} MB",
            f"{b['cold_start_s']:.2f} s",
        ]
        rows.append(f"| {label} | " + " | ".join(cells) + " |")
    return rows


def chinese_table(results: list[Result]) -> list[str]:
    """nextword beside the character baselines on the Chinese dev splits."""
    rows = [
        "| dev split | characters | engine | next char top-1 | next char top-3 "
        "| continuation top-1 | continuation top-3 | KSR@3 (characters) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in results:
        engines = [("**nextword**", r), ("Presage (character trigram)", r["baselines"]["presage"])]
        engines.append(("unigram (characters)", r["baselines"]["unigram"]))
        for name, q in engines:
            cells = _cells([q[k] for k in ("nextchar_top1", "nextchar_top3", "top1", "top3")])
            rows.append(
                f"| {split_name(r)} | {r['words']:,} | {name} | {cells} | {q['ksr@3']:.3f} |"
            )
    return rows


def headline_table(
    english: list[Result],
    chinese: list[Result],
    bench: Result,
    doctor: Result,
    machine: str,
    openings: Result | None = None,
) -> list[str]:
    """The README's one table: nextword against Presage on every dev split, its decision
    latency, and the server's memory, with the machine they were measured on; with
    `openings` (`nextword eval --openings`), how the two did on the everyday openings."""
    rows = [
        "| dev split | KSR@3 nextword | KSR@3 Presage | top-3 nextword | top-3 Presage "
        "| decision p50 |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for r in [*english, *chinese]:
        presage = r["baselines"].get("presage")
        theirs = ["-", "-"] if presage is None else [f"{presage[k]:.3f}" for k in ("ksr@3", "top3")]
        rows.append(
            f"| {split_name(r)} | **{r['ksr@3']:.3f}** | {theirs[0]} | **{r['top3']:.3f}** "
            f"| {theirs[1]} | {r['latency_ms']['boundary']['p50']:.1f} ms |"
        )
    load = doctor["model"]["load_and_warmup_s"]
    everyday = ""
    if openings is not None and "presage" in openings["openings"]:
        ours, theirs = openings["openings"]["nextword"], openings["openings"]["presage"]
        everyday = (
            f"On {ours['openings']} everyday openings, each typed into a new document, the "
            f"top five hold a word a judge would accept next for {ours['hits']} (nextword) "
            f"and {theirs['hits']} (Presage) "
            "([docs/FIGURES.md](docs/FIGURES.md#everyday-openings)). "
        )
    return [
        *rows,
        "",
        everyday
        + f"Server memory: peak RSS {bench['peak_rss_mb']:.0f} MB with both models loaded, "
        f"typing at 10 keys/s (`nextword bench`); model load and warm-up {load:.2f} s. "
        + ("Chinese top-3 counts continuations. " if chinese else "")
        + f"Measured on {machine}; every table: [docs/FIGURES.md](docs/FIGURES.md).",
    ]


def running_time(seconds: dict[str, float], total: float, lang: str) -> list[str]:
    """How long a `nextword figures` run took, step by step."""
    rows = ["| step | time |", "| --- | --- |"]
    rows += [f"| {step} | {s / 60:.1f} min |" for step, s in seconds.items()]
    return [
        *rows,
        "",
        f"The last run (`--lang {lang}`) took {total / 60:.0f} minutes in all. Preparing the "
        "corpus and building Presage's databases happen on the first run only.",
    ]


def machine_line(doctor: Result, cpus: int | None, cpu: str) -> str:
    """The machine, MLX's device and the BLAS in use, as `nextword doctor` reports them."""
    blas = doctor["blas"]
    library = Path(blas["path"]).resolve().name if blas.get("path") else "bundled"
    return (
        f"{doctor['platform']}, {cpus or '?'} cores ({cpu}), MLX {doctor['mlx']} on "
        f"{doctor['device']} with {blas['name']} ({library}): `{doctor['backend']}`"
    )


def replace_block(text: str, name: str, lines: list[str], *, page: str) -> str:
    """`text` with the lines between `<!-- name -->` and `<!-- /name -->` replaced."""
    block = f"<!-- {name} -->\n" + "\n".join(lines) + f"\n<!-- /{name} -->"
    pattern = rf"<!-- {re.escape(name)} -->.*?<!-- /{re.escape(name)} -->"
    if len(re.findall(pattern, text, flags=re.S)) != 1:
        raise ValueError(f"{page} should hold the <!-- {name} --> markers once")
    return re.sub(pattern, lambda _: block, text, flags=re.S)


def check_blocks(page: Path, names: list[str]) -> None:
    """Raise ValueError unless `page` holds each block's markers once (OSError: no page)."""
    text = page.read_text(encoding="utf-8")
    for name in names:
        replace_block(text, name, [], page=str(page))


def write_blocks(page: Path, blocks: dict[str, list[str]]) -> None:
    """Rewrite the named blocks of one page (all or none: a missing marker changes nothing)."""
    text = page.read_text(encoding="utf-8")
    for name, lines in blocks.items():
        text = replace_block(text, name, lines, page=str(page))
    page.write_text(text, encoding="utf-8")
