"""mlx-lm's `llama` (mlx_lm/models/llama.py) written again in PyTorch, for training.

The same parameter names and layouts, so the weights move between the two unchanged:
the engine always runs mlx-lm's module, and tests/engine/test_train.py holds the two
to the same logits. Only what nextword trains is covered: no biases, as many key/value
heads as query heads, tied embeddings, the non-traditional RoPE without scaling. One
addition, for training only: residual dropout (no parameters).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from nextword.training.shape import Shape


class RMSNorm(nn.Module):
    def __init__(self, dims: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dims))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.rms_norm(x, (x.shape[-1],), self.weight, self.eps)


def rope(x: torch.Tensor, theta: float) -> torch.Tensor:
    """Rotary positions as MLX's `nn.RoPE(traditional=False)`: the two halves of each
    head's dimensions rotate together. x: (B, H, L, Dh)."""
    L, half = x.shape[-2], x.shape[-1] // 2
    freqs = theta ** (-torch.arange(half, device=x.device, dtype=torch.float32) / half)
    angles = torch.arange(L, device=x.device, dtype=torch.float32)[:, None] * freqs  # (L, Dh/2)
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    x1, x2 = x[..., :half], x[..., half:]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos], dim=-1)


class Attention(nn.Module):
    def __init__(self, shape: Shape, theta: float):
        super().__init__()
        d = shape.hidden_size
        self.heads, self.theta = shape.num_attention_heads, theta
        self.q_proj = nn.Linear(d, d, bias=False)
        self.k_proj = nn.Linear(d, d, bias=False)
        self.v_proj = nn.Linear(d, d, bias=False)
        self.o_proj = nn.Linear(d, d, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, L, D = x.shape
        q, k, v = (
            p(x).view(B, L, self.heads, D // self.heads).transpose(1, 2)  # (B, H, L, Dh)
            for p in (self.q_proj, self.k_proj, self.v_proj)
        )
        q, k = rope(q, self.theta), rope(k, self.theta)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o_proj(out.transpose(1, 2).reshape(B, L, D))


class MLP(nn.Module):
    def __init__(self, shape: Shape):
        super().__init__()
        d, f = shape.hidden_size, shape.intermediate_size
        self.gate_proj = nn.Linear(d, f, bias=False)
        self.up_proj = nn.Linear(d, f, bias=False)
        self.down_proj = nn.Linear(f, d, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class TransformerBlock(nn.Module):
    def __init__(self, shape: Shape, eps: float, theta: float, dropout: float):
        super().__init__()
        self.self_attn = Attention(shape, theta)
        self.mlp = MLP(shape)
        self.input_layernorm = RMSNorm(shape.hidden_size, eps)
        self.post_attention_layernorm = RMSNorm(shape.hidden_size, eps)
        # Residual dropout, as mlx_backend.add_residual_dropout.
        self.drop = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x + self.drop(self.self_attn(self.input_layernorm(x)))
        return h + self.drop(self.mlp(self.post_attention_layernorm(h)))


class LlamaModel(nn.Module):
    def __init__(self, shape: Shape, dropout: float):
        super().__init__()
        config = shape.config()
        eps, theta = config["rms_norm_eps"], config["rope_theta"]
        self.embed_tokens = nn.Embedding(shape.vocab_size, shape.hidden_size)
        self.layers = nn.ModuleList(
            TransformerBlock(shape, eps, theta, dropout) for _ in range(shape.num_hidden_layers)
        )
        self.norm = RMSNorm(shape.hidden_size, eps)


class TorchLlama(nn.Module):
    def __init__(self, shape: Shape, dropout: float = 0.0):
        super().__init__()
        self.model = LlamaModel(shape, dropout)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        h = self.model.embed_tokens(tokens)  # (B, L, D)
        for block in self.model.layers:
            h = block(h)
        return self.model.norm(h) @ self.model.embed_tokens.weight.T  # (B, L, V), tied
