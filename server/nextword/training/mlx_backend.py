"""The training step on MLX: mlx-lm's `llama` itself, AdamW, one compiled step.

One of the two backends of train.py's loop (torch_backend.py is the other). It trains
the very module the engine runs, so it needs nothing beyond the runtime's packages.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path
from typing import Any

import numpy as np

from nextword.blas import preload
from nextword.training.shape import Shape

OPTIMIZER_FILE = "optimizer.safetensors"


class MlxBackend:
    """mlx-lm's llama and AdamW (weight decay 0.1, betas 0.9/0.95, clip 1.0)."""

    name = "mlx"

    def __init__(self, shape: Shape, *, dropout: float = 0.0):
        import mlx.core as mx
        import mlx.nn as nn
        import mlx.optimizers as optim

        from nextword.engine.architectures import architecture
        from nextword.engine.loader import parameter_count

        arch = architecture("llama")
        self.model = arch.Model(arch.ModelArgs.from_dict(shape.config()))
        self.optimizer = optim.AdamW(learning_rate=1e-3, weight_decay=0.1, betas=[0.9, 0.95])
        if dropout:
            add_residual_dropout(self.model, dropout)
        mx.eval(self.model.parameters())
        self.n_params = parameter_count(self.model)
        blas = " with OpenBLAS" if preload().name == "openblas" else ""
        version = importlib.metadata.version("mlx")
        device = "GPU" if mx.default_device() == mx.gpu else "CPU"
        self.machine = f"MLX {version} on the {device}{blas}"

        def loss_fn(model: nn.Module, x: mx.array, y: mx.array) -> mx.array:
            logits = model(x)  # (B, L, V)
            return nn.losses.cross_entropy(logits, y, reduction="mean")

        self._loss = loss_fn
        self._step: Any = None  # compiled at the first step, once the state is loaded

    def _compiled_step(self) -> Any:
        import mlx.core as mx
        import mlx.nn as nn
        import mlx.optimizers as optim

        loss_and_grad = nn.value_and_grad(self.model, self._loss)
        # The random state is part of the compiled step's state, or dropout's masks repeat.
        self._state = [self.model.state, self.optimizer.state, mx.random.state]

        def step(x: mx.array, y: mx.array) -> mx.array:
            loss, grads = loss_and_grad(self.model, x, y)
            grads, _ = optim.clip_grad_norm(grads, 1.0)
            self.optimizer.update(self.model, grads)
            return loss

        return mx.compile(step, inputs=self._state, outputs=self._state)

    def load_weights(self, path: Path) -> None:
        import mlx.core as mx

        self.model.load_weights(str(path), strict=True)
        self.model.set_dtype(mx.float32)

    def load_optimizer(self, ckpt: Path) -> bool:
        """The optimizer state of an MLX checkpoint; False where it has none."""
        from mlx.utils import tree_unflatten

        from nextword.engine.loader import load_safetensors

        path = ckpt / OPTIMIZER_FILE
        if not path.exists():
            return False
        self.optimizer.state = tree_unflatten(list(load_safetensors(str(path)).items()))
        return True

    def step(self, x: np.ndarray, y: np.ndarray, lr: float) -> float:
        import mlx.core as mx

        self.optimizer.learning_rate = lr
        if self._step is None:
            self._step = self._compiled_step()
        loss = self._step(mx.array(x), mx.array(y))
        mx.eval(loss, self._state)
        return float(loss)

    def losses(self, batches: dict[str, tuple[np.ndarray, np.ndarray]]) -> dict[str, float]:
        import mlx.core as mx

        self.model.eval()  # no dropout
        out = {
            s: float(self._loss(self.model, mx.array(x), mx.array(y)))
            for s, (x, y) in batches.items()
        }
        self.model.train()
        return out

    def write(self, folder: Path) -> None:
        """The weights (mlx-lm's names, fp32) and the optimizer state, into `folder`."""
        import mlx.core as mx
        from mlx.utils import tree_flatten

        self.model.save_weights(str(folder / "model.safetensors"))
        mx.save_safetensors(str(folder / OPTIMIZER_FILE), dict(tree_flatten(self.optimizer.state)))


def add_residual_dropout(model: Any, p: float) -> None:
    """Drop a share `p` of each block's attention and MLP outputs before they join the
    residual stream (GPT-2's residual dropout), in training only.

    mlx-lm's llama has no dropout. The everyday sources are small (email: 0.66M tokens,
    seen about ten times by 30M tokens of training) and validation loss stopped falling
    while training loss went on down. The output projections are swapped for a Linear
    that drops after itself, so the parameters keep their names and the exported
    directory is a plain mlx-lm model.
    """
    import mlx.core as mx
    import mlx.nn as nn

    class DroppingLinear(nn.Linear):
        def __call__(self, x: Any) -> Any:
            y = super().__call__(x)
            if not self.training:
                return y
            keep = mx.random.bernoulli(1 - p, y.shape)
            return mx.where(keep, y / (1 - p), 0)

    def dropping(linear: Any) -> Any:
        out_dims, in_dims = linear.weight.shape
        new = DroppingLinear(in_dims, out_dims, bias="bias" in linear)
        new.update(linear.parameters())
        return new

    for block in model.model.layers:
        block.self_attn.o_proj = dropping(block.self_attn.o_proj)
        block.mlp.down_proj = dropping(block.mlp.down_proj)
    model.train()
