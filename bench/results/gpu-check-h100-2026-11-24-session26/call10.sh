#!/bin/bash
# Twenty-sixth session, call 10: the sm80 half of the issue sweep again on main as it lands (the
# deterministic tables on the hand-over alone, call 9): cuda_sm80 and its deterministic mode
# against FA2, fwd and fwd+bwd, bf16, B·N = 16k, H·D = 2048, D = 64 / 128 / 256, N = 512 .. 16k.
# (Call 6's sweep ran the tables with DqTurnBeforeDqProduct; the Hopper forward is unchanged.)
source scripts/gpu-env.sh 2>/dev/null
timeout 590 scripts/gpu-check --families sm80 --dtypes "fp16;bf16" --bundle --no-tests \
  --no-sanitizers \
  --bench-args "--sections ceilings,sweep --seqlens 512,1024,2048,4096,8192,16384 --fattn-backends cuda_sm80,cuda_sm80+deterministic --sdpa-backends flash" \
  2>&1 | tail -6
