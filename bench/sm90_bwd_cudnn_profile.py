#!/usr/bin/env python3
"""One SDPA cuDNN backward (bf16, B*N = 16384, H*D = 2048, torch's (B, H, N, D) layout) after a
warm-up, for ncu beside bench/sm90_bwd_variants.py --profile (ncu -k regex:bprop ... -c 1).

  python3 bench/sm90_bwd_cudnn_profile.py 128,4096,0
"""
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

D, N, causal = (int(x) for x in sys.argv[1].split(","))
B, H = 16384 // N, 2048 // D
torch.manual_seed(0)
q, k, v = (torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16, requires_grad=True)
           for _ in range(3))
grad = torch.randn(B, H, N, D, device="cuda", dtype=torch.bfloat16)
with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
    out = F.scaled_dot_product_attention(q, k, v, is_causal=bool(causal))
for _ in range(2):
    torch.autograd.grad(out, (q, k, v), grad, retain_graph=True)
torch.cuda.synchronize()
print(f"profile: cudnn backward D={D} N={N} causal={causal}", flush=True)
torch.autograd.grad(out, (q, k, v), grad, retain_graph=True)
torch.cuda.synchronize()
