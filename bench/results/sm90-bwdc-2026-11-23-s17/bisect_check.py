# Host replica of common/mask.hpp and backward_kernel.cuh's query_tile_range / _bisect /
# key_block_is_empty: the bisection must equal the scan for every mask, shape and key tile, and
# an "empty" 64-key block must have no visible (query, key) pair.
import itertools, random
def clamp(v, lo, hi): return lo if v < lo else (hi if v > hi else v)
class NoMask:
    def __init__(s, nq, nk): s.nq, s.nk = nq, nk
    def masked(s, r, c): return False
    def kb(s, r0): return 0
    def ke(s, r1): return s.nk
class Causal(NoMask):
    def masked(s, r, c): return c > r + (s.nk - s.nq)
    def ke(s, r1): return clamp(r1 - 1 + (s.nk - s.nq) + 1, 0, s.nk)
class Window(NoMask):
    def __init__(s, nq, nk, left, right): s.nq, s.nk, s.l, s.r = nq, nk, left, right
    def masked(s, r, c):
        d = r + s.nk - s.nq
        return (s.r >= 0 and c > d + s.r) or (s.l >= 0 and c < d - s.l)
    def kb(s, r0): return 0 if s.l < 0 else clamp(r0 + s.nk - s.nq - s.l, 0, s.nk)
    def ke(s, r1): return s.nk if s.r < 0 else clamp(r1 - 1 + s.nk - s.nq + s.r + 1, 0, s.nk)
def scan(m, nq, key0, bn, BM):
    mb = (nq + BM - 1) // BM
    def t(i):
        r0 = i * BM; r1 = min(r0 + BM, nq); kb = m.kb(r0); ke = m.ke(r1)
        return ke > kb and kb < key0 + bn and ke > key0
    i = 0
    while i < mb and not t(i): i += 1
    f = i
    while i < mb and t(i): i += 1
    return f, i
def bisect(m, nq, key0, bn, BM):
    mb = (nq + BM - 1) // BM
    ke_of = lambda i: m.ke(min((i + 1) * BM, nq))
    def t(i):
        kb = m.kb(i * BM); ke = ke_of(i)
        return ke > kb and kb < key0 + bn and ke > key0
    lo, hi = 0, mb
    while lo < hi:
        mid = (lo + hi) // 2
        if ke_of(mid) > key0: hi = mid
        else: lo = mid + 1
    start = lo; hi = mb
    while lo < hi:
        mid = (lo + hi) // 2
        if t(mid): lo = mid + 1
        else: hi = mid
    return (start, lo) if lo > start else (mb, mb)
def empty(m, r0, r1, k0, k1):
    kb = m.kb(r0); ke = m.ke(r1)
    return not (ke > kb and kb < k1 and ke > k0)
random.seed(1)
n = bad = empties = 0
sizes = [1, 2, 17, 63, 64, 65, 127, 128, 129, 130, 191, 257, 300, 517, 700, 1013, 1024]
for nq, nk in itertools.product(sizes, sizes):
    masks = [NoMask(nq, nk), Causal(nq, nk)] + [Window(nq, nk, l, r) for l in (-1, 0, 1, 5, 63, 64, 200) for r in (-1, 0, 1, 7, 64, 300)]
    for m in masks:
        for key0 in range(0, nk, 128):
            for BM in (64, 128):
                a = scan(m, nq, key0, 128, BM); b = bisect(m, nq, key0, 128, BM); n += 1
                if a != b:
                    bad += 1
                    if bad < 10: print("MISMATCH", type(m).__name__, vars(m), key0, BM, a, b)
                if BM != 64 or a[0] == a[1]: continue
                for mt in range(a[0], a[1]):
                    r0 = mt * 64; r1 = min(r0 + 64, nq)
                    flags = []
                    for g in (key0, key0 + 64):
                        e = empty(m, r0, r1, g, g + 64)
                        flags.append(e)
                        if e:
                            empties += 1
                            vis = any(not m.masked(r, c) for r in range(r0, r1) for c in range(g, min(g + 64, nk)))
                            if vis: bad += 1; print("EMPTY BUT VISIBLE", type(m).__name__, vars(m), r0, g)
                    if all(flags): bad += 1; print("BOTH EMPTY", type(m).__name__, vars(m), r0, key0)
print(f"{n} ranges compared, {empties} empty blocks checked, {bad} problems")
