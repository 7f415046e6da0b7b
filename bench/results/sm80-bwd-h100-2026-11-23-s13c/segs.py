# h13-bwd80c used h13-bwd80b's loop-top extractor unchanged; this runs that one.
#   python3 segs.py SASS KERNEL-REGEX
import pathlib, runpy, sys
runpy.run_path(str(pathlib.Path(__file__).resolve().parent.parent /
                   "sm80-bwd-h100-2026-11-23-s13b" / "segs.py"), run_name="__main__")
