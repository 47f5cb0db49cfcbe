"""The training step on PyTorch: the same `llama`, for speed, on the CPU or a GPU.

Measured on the 2-core x86_64 machine, 6.3M parameters, batch 16 x 128: MLX's compiled
step about 1,460 tokens/s; PyTorch 2.13 (CPU build) with `torch.compile` 3,400-3,550 in
`nextword train` (2,200 before torch was held to one thread beside the preloaded
OpenBLAS, below). On a lent accelerator the same code runs on CUDA in bf16.

The model is torch_llama.py's, mlx-lm's `llama` with the same parameter names, so a
checkpoint's `model.safetensors` is read by either backend and exported unchanged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from nextword.blas import preload
from nextword.training.shape import Shape

OPTIMIZER_FILE = "optimizer.pt"


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        from nextword.errors import CommandError

        raise CommandError(
            "--backend torch needs PyTorch: pip install 'torch==2.13.0' (or any 2.x)"
        ) from None
    return torch


def cpu_has_bf16() -> bool:
    """True on a CPU with AVX-512 BF16 instructions (Linux: /proc/cpuinfo's flags)."""
    try:
        return "avx512_bf16" in Path("/proc/cpuinfo").read_text().split()
    except OSError:
        return False


def use_bf16(precision: str, device: str) -> bool:
    """bf16 autocast for "bf16"; for "auto" on CUDA and on a CPU with AVX-512 BF16
    (1.5-1.7x fp32's tokens/s on this machine; dev loss checked in the model card)."""
    if precision not in ("auto", "fp32", "bf16"):
        from nextword.errors import CommandError

        raise CommandError(f"--precision {precision!r}: auto, fp32 or bf16")
    if precision == "auto":
        return device == "cuda" or cpu_has_bf16()
    return precision == "bf16"


class TorchBackend:
    """`TorchLlama` and AdamW with the MLX backend's settings, on CUDA when there is one,
    else on the CPU; bf16 autocast by `precision` (master weights stay fp32);
    `torch.compile` unless told not to."""

    name = "torch"

    def __init__(
        self,
        shape: Shape,
        *,
        dropout: float = 0.0,
        compile: bool = True,
        precision: str = "auto",
    ):
        torch = _torch()
        self.torch = torch
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        self.bf16 = use_bf16(precision, self.device)
        if self.device == "cpu" and not self.bf16 and preload().path is not None:
            # fp32 matmuls resolve to the OpenBLAS nextword preloads for MLX (global
            # symbols), which runs threads of its own: torch's on top oversubscribe the
            # cores. One torch thread: 2,200 -> 3,400 tokens/s on 2 cores. bf16 matmuls
            # are oneDNN's, on torch's own threads: those keep every core.
            torch.set_num_threads(1)
        from nextword.training.torch_llama import TorchLlama

        self.model = TorchLlama(shape, dropout).to(self.device)
        self._init_like_mlx()
        self.n_params = sum(p.numel() for p in self.model.parameters())
        where = torch.cuda.get_device_name() if self.device == "cuda" else "the CPU"
        how = ("torch.compile" if compile else "eager") + (", bf16 autocast" if self.bf16 else "")
        self.machine = f"PyTorch {torch.__version__} ({how}) on {where}"
        self.optimizer = torch.optim.AdamW(
            self.model.parameters(), lr=1e-3, weight_decay=0.1, betas=(0.9, 0.95)
        )
        F = torch.nn.functional
        V = shape.vocab_size

        def loss_fn(x: Any, y: Any) -> Any:
            with torch.autocast(self.device, dtype=torch.bfloat16, enabled=self.bf16):
                logits = self.model(x)
            return F.cross_entropy(logits.float().reshape(-1, V), y.reshape(-1))

        self._loss = torch.compile(loss_fn) if compile else loss_fn
        self._eager_loss = loss_fn

    def _init_like_mlx(self) -> None:
        """Start from weights as MLX would draw them (a fresh run): embeddings
        N(0, 1/sqrt(dims)), Linear uniform in +-1/sqrt(in), norms 1. PyTorch's defaults
        differ, and the first model's recipe (lr 2e-3) was tuned on MLX's."""
        torch = self.torch
        with torch.no_grad():
            for name, p in self.model.named_parameters():
                if name.endswith("embed_tokens.weight"):
                    p.normal_(0.0, p.shape[1] ** -0.5)
                elif name.endswith("norm.weight"):
                    p.fill_(1.0)
                else:
                    bound = p.shape[1] ** -0.5
                    p.uniform_(-bound, bound)

    def load_weights(self, path: Path) -> None:
        from safetensors.numpy import load_file

        arrays = load_file(str(path))
        ours = dict(self.model.named_parameters())
        if set(arrays) != set(ours):
            differ = sorted(set(arrays) ^ set(ours))[:3]
            raise ValueError(f"{path}: its parameters do not fit the shape ({differ})")
        with self.torch.no_grad():
            for name, a in arrays.items():
                ours[name].copy_(self.torch.from_numpy(a.astype(np.float32)))

    def load_optimizer(self, ckpt: Path) -> bool:
        """The optimizer state of a PyTorch checkpoint; False where it has none."""
        path = ckpt / OPTIMIZER_FILE
        if not path.exists():
            return False
        self.optimizer.load_state_dict(self.torch.load(path, map_location=self.device))
        return True

    def step(self, x: np.ndarray, y: np.ndarray, lr: float) -> float:
        torch = self.torch
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        self.model.train()
        loss = self._loss(*(torch.from_numpy(a).long().to(self.device) for a in (x, y)))
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        return loss.item()

    def losses(self, batches: dict[str, tuple[np.ndarray, np.ndarray]]) -> dict[str, float]:
        torch = self.torch
        self.model.eval()  # no dropout
        out = {}
        with torch.no_grad():
            for source, (x, y) in batches.items():
                xs, ys = (torch.from_numpy(a).long().to(self.device) for a in (x, y))
                out[source] = float(self._eager_loss(xs, ys))
        self.model.train()
        return out

    def write(self, folder: Path) -> None:
        """The weights with mlx-lm's names (fp32, as the MLX backend writes them) and
        the optimizer state, into `folder`. Written with `safetensors`, not MLX, so
        that a machine with PyTorch and no MLX (a lent GPU) can train."""
        from safetensors.numpy import save_file

        weights = {n: p.detach().float().cpu().numpy() for n, p in self.model.named_parameters()}
        save_file(weights, str(folder / "model.safetensors"), metadata={"format": "mlx"})
        self.torch.save(self.optimizer.state_dict(), folder / OPTIMIZER_FILE)
