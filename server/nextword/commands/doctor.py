"""`nextword doctor`: what nextword runs on, and whether it is fast here."""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", help="model directory (default: the bundled model)")
    parser.add_argument(
        "--chinese-model", help="model directory for Chinese text (default: the bundled one)"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def matmul_gflops() -> float:
    """fp32 matmul throughput: tells a preloaded OpenBLAS (~200) from the reference (~6)."""
    import mlx.core as mx

    n = 512
    a = mx.random.normal((n, n))
    mx.eval(a @ a)
    start = time.perf_counter()
    for _ in range(5):
        mx.eval(a @ a)
    return 5 * 2 * n**3 / (time.perf_counter() - start) / 1e9


def report(model: str | None, chinese_model: str | None = None) -> tuple[dict, bool]:
    import mlx.core as mx

    from nextword import blas
    from nextword.engine.loader import ModelError, resolve
    from nextword.engine.router import Router
    from nextword.evaluation.baselines import PresageBaseline

    state = blas.preload()
    info: dict = {
        "platform": f"{platform.system()} {platform.machine()}, Python {sys.version.split()[0]}",
        "mlx": getattr(mx, "__version__", "?"),
        "device": str(mx.default_device()),
        "backend": blas.backend_label(),
        "blas": {"name": state.name, "path": state.path, "note": state.note},
        "matmul_gflops": round(matmul_gflops(), 1),
    }
    ok = True
    try:
        router = Router.load(model, chinese_model)
    except ModelError as err:
        info["model"] = {"path": str(resolve(model)), "error": str(err)}
        ok = False
    else:
        for lang, engine in router.engines.items():
            described = engine.describe()
            described["load_and_warmup_s"] = round(engine.load_seconds, 3)
            info["model" if lang == "en" else "chinese_model"] = described
        if "zh" not in router.engines:
            info["chinese_model"] = {"error": "; ".join(router.problems) or "none"}
    # The evaluator's baseline (`nextword eval --baseline presage`).
    info["presage"] = {
        "available": PresageBaseline.available(),
        "note": "for `nextword eval --baseline presage`"
        + ("" if PresageBaseline.available() else "; install Debian's presage"),
    }
    return info, ok


def run(args: argparse.Namespace) -> int:
    info, ok = report(args.model, args.chinese_model)
    if args.json:
        print(json.dumps(info))
        return 0 if ok else 1
    blas_info = info["blas"]
    print(f"platform   {info['platform']}")
    print(f"mlx        {info['mlx']} on {info['device']} ({info['backend']})")
    print(f"blas       {blas_info['name']} {blas_info['path'] or ''} - {blas_info['note']}")
    print(f"matmul     {info['matmul_gflops']} GFLOP/s (fp32, 512x512)")
    for key, label in (("model", "model     "), ("chinese_model", "Chinese   ")):
        m = info.get(key)
        if m is None:
            continue
        if "error" in m:
            print(f"{label} {'none' if m['error'] == 'none' else 'ERROR: ' + m['error']}")
        else:
            print(
                f"{label} {m['path']}: {m['model_type']}, {m['parameters'] / 1e6:.2f}M "
                f"parameters, {m['weights_bytes'] / 1e6:.1f} MB weights, "
                f"{m['lexicon_words']:,} words, load + warm-up {m['load_and_warmup_s']:.2f} s"
            )
    presage = info["presage"]
    print(f"presage    {'available' if presage['available'] else 'missing'} - {presage['note']}")
    return 0 if ok else 1
