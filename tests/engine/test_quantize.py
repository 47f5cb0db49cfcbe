"""`nextword quantize` writes a loadable quantized copy and reports its parity."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import FIXTURES, nextword
from nextword.engine.engine import Engine


def test_quantized_copy_loads_and_agrees(tmp_path: Path):
    # The bundled model, not the tiny one: 20 steps of training leave the tiny model's
    # next-word distribution nearly flat, so 8-bit rounding reorders its near-ties and the
    # overlap varied with the machine's arithmetic (0.86 on one CI machine). A trained
    # model's top 5 is what parity is about (0.97 here).
    out = tmp_path / "q8"
    result = nextword(
        "quantize", "--bits", "8", "--group-size", "32", "--out", str(out),
        "--parity-text", str(FIXTURES / "eval" / "prose.txt"), "--json",
    )  # fmt: skip
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["top5_overlap"] >= 0.9
    config = json.loads((out / "config.json").read_text())
    assert config["quantization"] == {"group_size": 32, "bits": 8}
    candidates = Engine.load(out).decider().decide("The user ", "", 3)
    assert candidates


def test_bad_group_size_is_a_clear_error(tiny_model: Path, tmp_path: Path):
    result = nextword(
        "quantize", "--bits", "4", "--group-size", "48", "--model", str(tiny_model),
        "--out", str(tmp_path / "q"), check=False,
    )  # fmt: skip
    assert result.returncode == 1 and "group size" in result.stderr
    assert "Traceback" not in result.stderr
