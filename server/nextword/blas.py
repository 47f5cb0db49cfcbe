"""Load an optimized BLAS into the global symbol scope before MLX is imported.

The Linux `mlx[cpu]` wheel links the reference Netlib BLAS, about 30x slower than
OpenBLAS for the matmuls a transformer runs. MLX resolves `sgemm_` and friends at
load time, so a library loaded earlier with RTLD_GLOBAL wins. This must run before
the first `import mlx`; `nextword/__init__.py` calls it for that reason.

Environment:
    NEXTWORD_BLAS: unset or "auto" tries the known OpenBLAS paths; "off" keeps the
    bundled BLAS; any other value is the path of a shared library to load.
    NEXTWORD_BLAS_THREADS: BLAS threads for decisions (default 1, see below).
"""

from __future__ import annotations

import ctypes
import os
import sys
from dataclasses import dataclass

# Debian/Ubuntu packages, multi-threaded build first (libopenblas0-pthread).
KNOWN_PATHS = (
    "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
    "/usr/lib/aarch64-linux-gnu/openblas-pthread/libopenblas.so.0",
    "/usr/lib/x86_64-linux-gnu/libopenblas.so.0",
    "/usr/lib/aarch64-linux-gnu/libopenblas.so.0",
    "/usr/lib64/libopenblas.so.0",
)


@dataclass(frozen=True)
class BlasState:
    """What `preload` did, for `nextword doctor` and the evaluator's `backend` field."""

    name: str  # "openblas", "reference", "accelerate", or "custom"
    path: str | None
    note: str


_state: BlasState | None = None


def preload() -> BlasState:
    """Load the BLAS chosen by NEXTWORD_BLAS once; later calls return the first result."""
    global _state
    if _state is not None:
        return _state
    _state = _choose()
    return _state


def _choose() -> BlasState:
    if sys.platform == "darwin":
        return BlasState("accelerate", None, "macOS: MLX uses Metal and Accelerate")
    if sys.platform != "linux":
        return BlasState("reference", None, f"no preload on {sys.platform}")
    setting = os.environ.get("NEXTWORD_BLAS", "auto").strip()
    if setting == "off":
        return BlasState("reference", None, "NEXTWORD_BLAS=off: MLX's bundled reference BLAS")
    if "mlx.core" in sys.modules:
        return BlasState("reference", None, "mlx was imported before nextword; preload skipped")
    candidates = KNOWN_PATHS if setting in ("", "auto") else (setting,)
    for path in candidates:
        if not os.path.exists(path):
            continue
        try:
            ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL)
        except OSError as err:
            return BlasState("reference", None, f"could not load {path}: {err}")
        name = "openblas" if "openblas" in os.path.basename(path) else "custom"
        return BlasState(name, path, "preloaded before mlx")
    if setting not in ("", "auto"):
        return BlasState("reference", None, f"NEXTWORD_BLAS={setting} does not exist")
    return BlasState(
        "reference",
        None,
        "no OpenBLAS found: install libopenblas0-pthread for ~30x faster matmuls",
    )


def set_inference_threads() -> int | None:
    """Use one BLAS thread for decisions (NEXTWORD_BLAS_THREADS overrides).

    A decision multiplies one or two rows by the weights: a second thread only adds
    hand-off cost, and on a busy machine (the editor, a build) it waits for a core.
    Measured here under load: boundary p95 10 ms with one thread, 30 ms with two.
    Returns the thread count set, or None where the BLAS has no such control.
    """
    state = preload()
    if state.path is None:
        return None
    try:
        threads = int(os.environ.get("NEXTWORD_BLAS_THREADS", "1"))
    except ValueError:
        threads = 1
    library = ctypes.CDLL(state.path)
    setter = getattr(library, "openblas_set_num_threads", None)
    if setter is None:
        return None
    setter(max(1, threads))
    return max(1, threads)


def backend_label() -> str:
    """A short label such as "cpu+openblas" for reports."""
    import mlx.core as mx

    device = "gpu" if mx.default_device() == mx.gpu else "cpu"
    return f"{device}+{preload().name}"
