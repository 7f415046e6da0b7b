"""Pairs the kernels of two objects by identical SASS, names ignored: for each kernel of NEW, the
kernel of OLD with the same instructions ("twin") or none. For configurations whose mangled name
changed without a code change (a template parameter added), where bench/sass_compare.py pairs by
name.   python3 same_code.py OLD.o NEW.o   (needs cuobjdump and c++filt, as sass_compare.py)"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from sass_compare import kernels, readable  # noqa: E402

old, new = kernels(sys.argv[1]), kernels(sys.argv[2])
bodies = {tuple(v): k for k, v in old.items()}
for name, body in new.items():
    twin = bodies.get(tuple(body))
    print("twin" if twin else "NONE", len(body), readable(name)[:70], "<->",
          readable(twin)[-60:] if twin else "")
