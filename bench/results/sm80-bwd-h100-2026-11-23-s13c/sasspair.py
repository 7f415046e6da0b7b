# h13-bwd80c's pairing, now bench/sass_compare.py's: the v28 wrapper (MaskedItemSourcesInSharedMemory<...>)
# taken out of NEW's names, `backward_kernel<` dropped from them.  usage: python3 sasspair.py OLD.o NEW.o
import runpy, sys; from pathlib import Path
sys.argv[1:1] = ["--strip-wrapper", "fattn::detail::sm80::MaskedItemSourcesInSharedMemory", "--drop", "backward_kernel<"]
runpy.run_path(str(Path(__file__).resolve().parents[2] / "sass_compare.py"), run_name="__main__")
