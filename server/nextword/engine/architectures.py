"""mlx-lm's model architectures, imported without mlx-lm's package `__init__`.

`import mlx_lm.models.llama` runs `mlx_lm/__init__.py` first, which imports
transformers: 0.8-1.8 s of cold start on the machines we target. The architecture
modules themselves need only mlx, so we register a bare package object for `mlx_lm`
that points at the installed files and import the submodule through it.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from typing import Any

# Names that mlx-lm maps onto another architecture module (mlx_lm.utils.MODEL_REMAPPING).
_REMAPPING = {"mistral": "llama", "iquestcoder": "llama", "xverse": "llama"}


def _ensure_light_package() -> None:
    if "mlx_lm" in sys.modules:
        return
    spec = importlib.util.find_spec("mlx_lm")
    if spec is None or spec.submodule_search_locations is None:
        raise ModuleNotFoundError("mlx-lm is not installed: pip install mlx-lm")
    package = types.ModuleType("mlx_lm")
    package.__path__ = list(spec.submodule_search_locations)
    package.__spec__ = spec
    sys.modules["mlx_lm"] = package


def architecture(model_type: str) -> types.ModuleType:
    """The `mlx_lm.models.<model_type>` module, with its `Model` and `ModelArgs`.

    Raises:
        ModuleNotFoundError: mlx-lm has no such architecture.
    """
    _ensure_light_package()
    name = _REMAPPING.get(model_type, model_type)
    if not name.replace("_", "").isalnum():
        raise ModuleNotFoundError(f"not an architecture name: {model_type!r}")
    return importlib.import_module(f"mlx_lm.models.{name}")


def make_cache(model: Any) -> list[Any]:
    """A fresh per-layer KV cache for `model` (mlx-lm's own cache classes)."""
    _ensure_light_package()
    from mlx_lm.models.cache import make_prompt_cache

    return make_prompt_cache(model)
