# Sourced by bench/sm80_build.sh and bench/sm90_build.sh: compiles every source in its own nvcc
# process (in parallel: one instantiation per process is how the library builds too), keeps each
# file's ptxas report and compile time in <out>/ptxas.log, and links the objects into a shim.
#   build_shim <out dir> <jobs> <library file name> "<nvcc flags>" <source>...
build_shim() {
  local out=$1 jobs=$2 library=$3 flags=$4
  shift 4
  mkdir -p "$out"
  printf '%s\n' "$@" | xargs -P "$jobs" -I{} sh -c \
    'f={}; o='"$out"'/$(basename "$f" | sed "s/\.\(cu\|cpp\)$//").o; /usr/bin/time -f "$f %e s" nvcc '"$flags"' -c "$f" -o "$o" 2>"$o.log" || { cat "$o.log"; exit 1; }'
  cat "$out"/*.o.log > "$out/ptxas.log"
  grep ' s$' "$out/ptxas.log" || true
  nvcc -shared -o "$out/$library" "$out"/*.o -lcudart
  echo "built $out/$library"
}
