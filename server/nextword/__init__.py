"""nextword: local next-word completions from a small language model."""

from nextword import blas as _blas

# Before anything in the package can import mlx: see blas.py for why.
_blas.preload()

__version__ = "0.1.0"
