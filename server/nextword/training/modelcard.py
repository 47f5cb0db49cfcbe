"""The model card (README.md in a model directory), written from the facts on disk.

Training facts come from training.json, the data and licences from the corpus
manifest, the mixture from mixture.json and quality figures from eval.json (the
`nextword eval --json` output for the dev splits), so the card cannot drift from
the model it describes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def _load(path: Path) -> Any:
    return json.loads(path.read_text()) if path.exists() else None


ENGLISH_INTRO = [
    "# nextword-en: the bundled English model",
    "",
    "A small decoder-only transformer in mlx-lm's `llama` format, with the word tables",
    "nextword mixes into its decisions. Trained from scratch by `nextword train` on the",
    "corpora below only.",
    "",
]
CHINESE_INTRO = [
    "# nextword-zh: the bundled Chinese model",
    "",
    "A small decoder-only transformer in mlx-lm's `llama` format that predicts the next",
    "Chinese character; its continuations of one to four characters are words of the",
    "corpora's own segmentation (People's Daily and the HSK sentences are segmented by",
    "hand), ranked as P(first character) x P(word | first character), that share",
    "sharpened by what followed the character before the cursor in the training text. A",
    "character trigram from the same text is mixed in. Trained from scratch by `nextword",
    "train` on the corpora below only. nextword routes each decision by the script",
    "before the cursor: Chinese text goes to this model, everything else to the English",
    "one.",
    "",
    "Why a separate model, not a bilingual one, measured: after 500 training steps each",
    "(the same shape, batch and learning-rate schedule; `runs/bi` beside `runs/en` and",
    "`runs/zh`), a bilingual model (the English sources plus People's Daily, one",
    "8,192-token vocabulary, 11% of its batches Chinese) reached 6.53 nats per character",
    "on the Chinese dev split against 3.84 for the Chinese-only model, and 0-7% more per",
    "character on the eight English dev splits than the English-only model (Wikipedia",
    "1.927 against 1.893, release notes 1.245 against 1.167). Two models cost about 25 MB",
    "of memory and a choice of model per decision, which the script of the text makes.",
    "",
]


def mix_section(training: dict[str, Any], comparison: dict[str, Any] | None) -> list[str]:
    """The training mix: each source's share, and the short runs it was chosen by."""
    from nextword.errors import CommandError
    from nextword.training.mixes import mix_shares

    try:
        mix = mix_shares(training["mix"]) if training.get("mix", "sqrt") != "sqrt" else None
    except CommandError:
        mix = None
    if not mix:
        return []
    used = training.get("sources", list(mix))
    total = sum(mix[s] for s in used)
    shares = ", ".join(f"{s} {mix[s] / total:.0%}" for s in used)
    lines = ["", "## Training mix", "", f"Share of the batches per source: {shares}."]
    if not comparison:
        return lines
    results = comparison["results"]
    sources = [s for s in next(iter(results.values())) if s != "mean"]
    lines += [
        "",
        f"Chosen by measurement: {comparison['what']}. {comparison['run']}; "
        f"{comparison['dev_windows']}.",
        "",
        "| run | " + " | ".join(sources) + " | mean |",
        "| --- " * (len(sources) + 2) + "|",
    ]
    for name, losses in results.items():
        cells = " | ".join(f"{losses[s]:.3f}" for s in [*sources, "mean"])
        lines.append(f"| {name} | {cells} |")
    for name, shares_of in comparison["mixes"].items():
        total = sum(shares_of.values())
        lines.append("")
        lines.append(
            f"`{name}`: " + ", ".join(f"{s} {v / total:.0%}" for s, v in shares_of.items())
        )
    lines += ["", f"Chosen: `{comparison['chosen']}`. {comparison['why']}."]
    return lines


def genre_section(mixture: dict[str, Any] | None) -> list[str]:
    """The n-gram per genre against one for all the text (training/genre_fit.py)."""
    fit = (mixture or {}).get("genre_fit")
    if not fit:
        return []
    genres = ", ".join(f"{g} {p:.3f}" for g, p in zip(fit["genres"], fit["prior"], strict=True))
    grid = fit["grid"]
    files = [k for k in grid["inf"] if k != "mean"]
    rows = [("one trigram for all the text", "pooled")] if "pooled" in grid else []
    rows += [("per genre, the training mix's shares", "inf")]
    rows += [(f"per genre, following the document (c = {k})", k) for k in grid if k not in
             ("inf", "pooled")]  # fmt: skip
    lines = [
        "",
        "## The n-gram follows the document's genre",
        "",
        f"One word n-gram per genre of training text (4-grams in chat and email, trigrams "
        f"elsewhere; docs/TRAINING.md); prior weights (the mix's shares): "
        f"{genres}. The weights follow the document online (engine/genres.py), the prior "
        f"counting as c words; c = {mixture['genre_evidence_words']:g} chosen by "  # type: ignore[index]
        f"{fit['objective']}. Mean log-probability per word of the n-gram alone, last "
        f"{fit['words_per_file']:,} words of each dev file:",
        "",
        "| n-gram | " + " | ".join(files) + " | mean |",
        "| --- | " + " | ".join("---" for _ in files) + " | --- |",
    ]
    for label, key in rows:
        row = grid[key]
        lines.append(f"| {label} | " + " | ".join(f"{row[f]:.3f}" for f in files) +
                     f" | {row['mean']:.3f} |")  # fmt: skip
    return [*lines, ""]


def shape_section(bench: dict[str, Any] | None) -> list[str]:
    """Larger shapes' decision cost (training/shape_bench.py)."""
    if not bench:
        return []
    lines = [
        "",
        "## Model size, by what a decision costs",
        "",
        "Boundary decisions over dev email with freshly drawn weights of each shape and this "
        "model's word tables, one run (training/shape_bench.py; 2-core x86_64, MLX CPU with "
        "OpenBLAS):",
        "",
        "| shape | parameters | boundary p50 | p95 | p99 | CPU per typed character |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    base = bench["1x"]["p50_ms"]
    for row in bench.values():
        lines.append(
            f"| {row['shape']} | {row['parameters_m']}M | {row['p50_ms']} ms "
            f"({row['p50_ms'] / base:.2f}x) | {row['p95_ms']} ms | {row['p99_ms']} ms | "
            f"{row['cpu_ms_per_char_boundaries']} ms |"
        )
    return [*lines, ""]


# The dev sources the trained-shapes table shows (everyday first), of the losses recorded.
SHAPE_LOSS_SOURCES = ("chat", "email", "sotu", "wiki", "pydocs", "pystdlib")


def trained_shapes_section(compare: dict[str, Any] | None) -> list[str]:
    """Shapes trained on the same tokens, each measured in one run (shape_bench --runs)."""
    if not compare:
        return []
    rows = list(compare.values())
    files = sorted({f for row in rows for f in row.get("quality", {})})
    sources = [s for s in SHAPE_LOSS_SOURCES if s in rows[0]["val_loss"]]
    lines = [
        "",
        "### Trained on the same tokens",
        "",
        f"Each shape trained from scratch on the same {rows[0]['tokens_seen']:,} tokens (the "
        "same seed, mix, batches and schedule), then measured in one run, each beside the "
        "same word tables (`python -m nextword.training.shape_bench --runs ...`): "
        "validation loss (nats per token), KSR@3 and top-3 of the mixed decisions on dev "
        "text, and the boundary decision's cost over dev email.",
        "",
        "| shape | parameters | "
        + " | ".join(f"loss {s}" for s in [*sources, "mean"])
        + " | "
        + " | ".join(f"KSR@3 {f} | top-3 {f}" for f in files)
        + " | boundary p50 | p99 | CPU per typed character |",
        "| --- | --- | " + "--- | " * (len(sources) + 1 + 2 * len(files)) + "--- | --- | --- |",
    ]
    base = rows[0]["p50_ms"]
    for row in rows:
        losses = " | ".join(f"{row['val_loss'][s]:.3f}" for s in [*sources, "mean"])
        quality = " | ".join(
            f"{row['quality'][f]['ksr@3']:.3f} | {row['quality'][f]['top3']:.3f}" for f in files
        )
        lines.append(
            f"| {row['shape']} | {row['parameters_m']}M | {losses} | {quality} | "
            f"{row['p50_ms']} ms ({row['p50_ms'] / base:.2f}x) | {row['p99_ms']} ms | "
            f"{row['cpu_ms_per_char_boundaries']} ms |"
        )
    return [*lines, ""]


def write_card(model_dir: Path, manifest_path: Path) -> None:
    training = _load(model_dir / "training.json") or {}
    manifest = _load(manifest_path) or {"sources": []}
    mixture = _load(model_dir / "mixture.json")
    evals = _load(model_dir / "eval.json") or []
    config = _load(model_dir / "config.json") or {}
    shape = training.get("shape", {})
    used = set(training.get("sources", []))
    langs = {s.get("lang", "en") for s in manifest["sources"] if s["id"] in used}
    chinese = langs == {"zh"}
    lines = (CHINESE_INTRO if chinese else ENGLISH_INTRO) + [
        "## Model",
        "",
        f"- Architecture: `{config.get('model_type')}`, hidden {shape.get('hidden_size')}, "
        f"{shape.get('num_hidden_layers')} layers, {shape.get('num_attention_heads')} heads, "
        f"FFN {shape.get('intermediate_size')}, tied embeddings",
        f"- Tokenizer: byte-level BPE (HF `tokenizers`), {shape.get('vocab_size')} tokens"
        + (", each Chinese character one token (never merged with a neighbour)" if chinese else ""),
        "- Weights stored in fp16 (run in fp32 on CPU)",
        f"- Training: {training.get('step', 0):,} steps, "
        f"{training.get('tokens_seen', 0):,} tokens seen, "
        f"{training.get('seconds', 0) / 3600:.1f} h on "
        + training.get("trained_on", "a 2-core x86_64 CPU (MLX CPU backend with OpenBLAS)")
        + (f", residual dropout {training['dropout']}" if training.get("dropout") else "")
        + (
            f", resumed from a model that had seen {training['tokens_before']:,}: "
            f"{training['tokens_before'] + training.get('tokens_seen', 0):,} tokens in all"
            if training.get("tokens_before")
            else ""
        ),
    ]
    if training.get("mix"):
        lines.append(f"- Training mix: `{training['mix']}` (below)")
    val = training.get("val_loss")
    if val:
        per_source = ", ".join(f"{k} {v:.2f}" for k, v in val.items() if k != "mean")
        lines.append(f"- Validation loss (nats per token): mean {val['mean']:.3f} ({per_source})")
    if mixture and "positions" not in mixture:
        weights = ", ".join(f"{k} {v}" for k, v in mixture["weights"].items())
        lines.append(f"- Mixture weights: {weights}; {mixture.get('objective', '')}")
        if "system_lm" in mixture:
            lines.append(
                f"- The system component is the system's language model, read where it is "
                f"installed and fitted as found at `{mixture['system_lm']}` (fcitx5's KenLM "
                "trigram, Debian `libime-data-language-model`, LGPL-2.1+; not training data, "
                "and not shipped: without it the other weights are renormalised)"
            )
    elif mixture:
        lines.append(
            f"- Mixture weights, fitted on dev text ({mixture['positions']:,} words): "
            + ", ".join(f"{k} {v}" for k, v in mixture["weights"].items())
        )
        if mixture.get("general_chosen_by_hand"):
            lines.append(
                "- The general trigram's weight is set by hand: "
                + mixture["general_chosen_by_hand"]
            )
        user_fit = mixture.get("user_fit", {})
        if user_fit.get("chosen_by_hand"):
            # Why the personal weights are not the fit's (training/personal_fit.py).
            lines.append(
                f"- The personal store's weights are set by hand: {user_fit['chosen_by_hand']}"
            )
    unit = "characters" if chinese else "words"
    lines += [
        "",
        "## Data and licences",
        "",
        f"| source | genre | licence | origin | train {unit} |",
    ]
    lines.append("| --- | --- | --- | --- | --- |")
    for s in manifest["sources"]:
        if s["id"] in used:
            size = s["splits"]["train"][unit]
            lines.append(
                f"| {s['id']} | {s['genre']} | {s['licence']} | {s['origin']} | {size:,} |"
            )
    lines += ["", f"Splits: {manifest.get('split', 'whole documents held out by hash')}."]
    lines += mix_section(training, _load(model_dir / "mix-comparison.json"))
    lines += genre_section(mixture)
    lines += shape_section(_load(model_dir / "shape-bench.json"))
    lines += trained_shapes_section(_load(model_dir / "shape-compare.json"))
    if not chinese:
        lines.append(
            "The Wikipedia excerpt `../parity.txt` (CC BY-SA) serves the quantization parity check."
        )
        lines.append(
            "Corrections (not training): the error model `../typos.json` is fitted on "
            "codespell's allowed misspellings (PyPI codespell 2.4.3, CC BY-SA 3.0), and the "
            "words they may offer beyond the lexicon, `../spelling.txt`, are wordfreq's "
            "English list (PyPI wordfreq 3.1.1, data CC BY-SA 4.0), used as a unigram prior."
        )
        lines.append(
            "Standard spellings (not training): `../variants.txt` maps informal spellings to "
            "standard ones: contractions from PyPI contractions 0.1.73 (MIT) checked against "
            "wordfreq, and words the chats write in lower case to the capitals of Hunspell's "
            "en_US dictionary (Debian `hunspell-en-us`, SCOWL, permissive) where this model's "
            "edited training text writes them so (`python -m nextword.data.variants`)."
        )
        general = (model_dir / "general" / "COPYRIGHT").exists()
        if general and mixture and mixture["weights"].get("general"):
            lines.append(
                "The `general` component (not training data) is CMU Sphinx's US English word "
                "trigram (Debian `pocketsphinx-en-us`, BSD-2; `general/COPYRIGHT`), converted "
                "over this lexicon by `python -m nextword.training.general` and weighted by "
                "the mixture's fit like the other components."
            )
    if evals:
        lines += [
            "",
            "## Evaluation (dev splits, `nextword eval`)",
            "",
            "| dev text | positions | engine | KSR@1 | KSR@3 | KSR@5 | top1 | top3 | MRR@5 "
            "| next char top1 | next char top3 |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        ]
        for r in evals:
            name = Path(r["file"]).stem
            for engine, q in [("nextword", r), *r["baselines"].items()]:
                chars = " | ".join(
                    f"{q[key]:.3f}" if key in q else ""
                    for key in ("nextchar_top1", "nextchar_top3")
                )
                lines.append(
                    f"| {name} | {r['words']:,} | {engine} | {q['ksr@1']:.3f} | "
                    f"{q['ksr@3']:.3f} | {q['ksr@5']:.3f} | {q['top1']:.3f} | "
                    f"{q['top3']:.3f} | {q['mrr@5']:.3f} | {chars} |"
                )
        lat = evals[0]["latency_ms"]
        if chinese:
            lines += [
                "",
                "Every Han position is a decision (no typed prefix in Chinese); KSR counts "
                "characters, so only continuations of two or more characters save keystrokes.",
                "",
                f"Decision latency ({evals[0]['backend']}, 2-core x86_64): p50 "
                f"{lat['p50']:.2f} ms, p95 {lat['p95']:.2f} ms, p99 {lat['p99']:.2f} ms.",
            ]
        else:
            lines += [
                "",
                f"Decision latency ({evals[0]['backend']}, 2-core x86_64): word boundary p50 "
                f"{lat['boundary']['p50']:.2f} ms, p99 {lat['boundary']['p99']:.2f} ms; inside "
                f"a word p50 {lat['inword']['p50']:.3f} ms.",
            ]
    (model_dir / "README.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
