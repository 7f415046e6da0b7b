#!/bin/bash
# Twenty-ninth session, call 3: scripts/gpu-check for the sm90 family on the tree with the
# selector's shared-memory rule (sm90 tests, its sanitizer set, Python tests), no bench.
source scripts/gpu-env.sh 2>/dev/null
mkdir -p $OUT/gc
OUT=$OUT/gc timeout 570 scripts/gpu-check --families sm90 --no-bench --bundle 2>&1 | tail -12
