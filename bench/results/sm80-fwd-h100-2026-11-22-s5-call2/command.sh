source scripts/gpu-env.sh; set -o pipefail; B=build-sm80-fwd-device
(cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DFATTN_CUDA=ON -DFATTN_CUDA_FAMILIES=sm80 "-DFATTN_CUDA_HEAD_DIMS=64;128;192;256" "-DFATTN_CUDA_DTYPES=fp16;bf16" -DFATTN_CUDA_ARCHS=90a -DFATTN_CUDA_RESOURCE_USAGE=ON -DFATTN_BUILD_TOOLS=OFF >/tmp/libbuild.log 2>&1 && nice -n 19 ninja -C $B -j12 fattn_cuda_tests >>/tmp/libbuild.log 2>&1; echo "lib build rc $? $(date +%T)" >>/tmp/libbuild.log) &
export SM80_NEW_LIB=build-fwd80s5/shim/libsm80shim.so R=bench/sm80_fwd_device_run.sh
{ SM80_FWD_STEPS="check racecheck memcheck" bash $R
SM80_FWD_BASE_VARIANT=5 SM80_FWD_ODD=1 SM80_FWD_DIMS=64,128,192,256 SM80_FWD_STEPS=bench bash $R
SM80_FWD_BASE_VARIANT=5 SM80_FWD_DIMS=128,192,256 SM80_FWD_BENCH_TAG=-run2 SM80_FWD_STEPS=bench bash $R
timeout 60 python3 bench/sm80_vs_torch.py --lib $SM80_NEW_LIB --check --fwd-only --forward-variant 4 --check-dims 1,8,32,64,200,208,256 > /tmp/sm80-fwd-logs/check-v4.log 2>&1; echo "check v4 rc $?: $(grep check: /tmp/sm80-fwd-logs/check-v4.log)"
SM80_FWD_VARIANT=4 SM80_FWD_DIMS=256 SM80_FWD_BENCH_TAG=-v4 SM80_FWD_STEPS=bench bash $R
SM80_NCU_DIMS=128 SM80_NCU_SEQLEN=1024 SM80_NCU_VARIANT=5 SM80_FWD_STEPS=ncu bash $R
wait; tail -2 /tmp/libbuild.log; grep -cE '[1-9][0-9]* bytes spill stores' /tmp/libbuild.log
SM80_FWD_STEPS=lib bash $R; gzip -c /tmp/libbuild.log > $OUT/libbuild.log.gz; } 2>&1 | tee $OUT/summary.txt
