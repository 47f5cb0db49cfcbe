"""nextword: local next-word completions from a small language model."""

__version__ = "0.1.0"
