"""The model card's table of shapes trained on the same tokens (shape_bench --runs)."""

from __future__ import annotations

from nextword.training.modelcard import trained_shapes_section


def row(shape: str, params: float, chat: float, p50: float) -> dict:
    return {
        "shape": shape,
        "parameters_m": params,
        "tokens_seen": 1_024_000,
        "val_loss": {"chat": chat, "email": 5.0, "kernel": 6.0, "mean": 5.2},
        "quality": {"email": {"ksr@3": 0.25, "top3": 0.2}},
        "p50_ms": p50,
        "p99_ms": 2 * p50,
        "cpu_ms_per_char_boundaries": 1.5,
    }


def test_each_shape_is_a_row_against_the_first() -> None:
    lines = trained_shapes_section(
        {"1x": row("256 x 4", 6.29, 4.55, 10.0), "2x": row("320 x 6", 12.46, 4.3, 17.0)}
    )
    text = "\n".join(lines)
    assert "1,024,000 tokens" in text
    header = next(line for line in lines if line.startswith("| shape"))
    assert "loss chat | loss email | loss mean | KSR@3 email | top-3 email" in header
    assert "kernel" not in header  # only the sources the table names
    rows = [line for line in lines if line.startswith("| 3") or line.startswith("| 2")]
    assert rows[0].startswith("| 256 x 4 | 6.29M | 4.550 | 5.000 | 5.200 | 0.250 | 0.200 |")
    assert "17.0 ms (1.70x)" in rows[1]
    assert all(line.count("|") == header.count("|") for line in rows)


def test_no_comparison_no_section() -> None:
    assert trained_shapes_section(None) == []
