# h13-bwd80b's pairing, now bench/sass_compare.py's: the v27 wrapper (MaskedStridedItemLoads<..., bool>)
# taken out of NEW's names, `(wrapped)` marked, names cut at 170.  usage: python3 sasspair.py OLD.o NEW.o
import runpy, sys; from pathlib import Path
sys.argv[1:1] = ["--strip-wrapper", "fattn::detail::sm80::MaskedStridedItemLoads", "--tag-wrapped", "--width", "170"]
runpy.run_path(str(Path(__file__).resolve().parents[2] / "sass_compare.py"), run_name="__main__")
