# h13-fwd80's turns (one shim: --lib; --sustained), now bench/sm80_fwd_turns.py: same arguments.
import runpy; from pathlib import Path
runpy.run_path(str(Path(__file__).resolve().parents[2] / "sm80_fwd_turns.py"), run_name="__main__")
