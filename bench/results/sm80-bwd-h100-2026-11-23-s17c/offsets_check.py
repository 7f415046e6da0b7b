"""Model of DqLineRounds' staging offsets (src/cuda/sm80/backward_dq_lines.cuh) as the code
computes them, for the 128 tables (kDimTilesQ 4: rows of 8 chunks) and the 256 tables (8: 16
chunks), 8 staging rows per round: each form's row-major read-back, the STS.64 / LDS.128
shared-memory wavefronts per round (32 banks of 4 bytes; STS.64 by half-warps, LDS.128 by
quarter-warps), and whether the split offsets equal the plain ones lane for lane."""
RPP = 8; CF = 4

def model(dim_tiles, pair, split):
    K = dim_tiles * 2; RPL = 32 // K; LPR = RPP // RPL
    SR = min(K // 2, RPP)
    rs = (lambda r: 2 * (r % SR)) if pair else (lambda r: r % RPP)
    def sts(l, dt):
        g, q = l // 4, l % 4
        if split and pair:
            base = g * (K * CF + 2 * CF) + 2 * q if SR == RPP else g * K * CF + 2 * CF * (g % SR) + 2 * q
            return base ^ (2 * CF * dt)
        if split:
            base = (g * K + ((q // 2) ^ (g % 2))) * CF + (q % 2) * 2
            phase = ((dt % 4) ^ (g // 2)) * 2 * CF
            fixed = ((dt // 4) * 8) * CF
            return base + phase + fixed
        chunk = (dt * 8 + 2 * q) // CF
        sw = (2 * g if SR == RPP else 2 * (g & (SR - 1))) if pair else g
        return (g * K + (chunk ^ sw)) * CF + (q % 2) * 2
    def lds(l, j):
        row_j = j * RPL
        if split and pair:
            r = l // K
            lane = r * K * CF + ((l % K) ^ (2 * r)) * CF
            return (lane ^ (2 * CF * (row_j % SR))) + row_j * K * CF
        if split:
            return (l // K * K * CF) + row_j * K * CF + (((l % K) ^ (l // K)) ^ (row_j % RPP)) * CF
        row = row_j + l // K
        return (row * K + ((l % K) ^ rs(row))) * CF
    return K, RPL, LPR, sts, lds

def wavefronts(addrs, width):
    per = 128 // width; total = 0
    for ph in range(0, 32, per):
        banks = {}
        for l in range(ph, ph + per):
            for w in range(width // 4):
                a = addrs[l] + w; banks.setdefault(a % 32, set()).add(a)
        total += max(len(v) for v in banks.values())
    return total

for dim_tiles in (4, 8):
    forms = {}
    for name, pair, split in (('row%8', False, False), ('split', False, True),
                              ('pair', True, False), ('pair+split', True, True)):
        K, RPL, LPR, sts, lds = model(dim_tiles, pair, split)
        loc = {}
        for l in range(32):
            for dt in range(dim_tiles):
                for e in range(2):
                    loc[sts(l, dt) + e] = (l // 4, dt * 8 + 2 * (l % 4) + e)
        ok = all(loc.get(lds(l, j) + e) == (j * RPL + l // K, (l % K) * 4 + e)
                 for l in range(32) for j in range(LPR) for e in range(4))
        sw = sum(wavefronts([sts(l, dt) for l in range(32)], 8) for dt in range(dim_tiles))
        lw = sum(wavefronts([lds(l, j) for l in range(32)], 16) for j in range(LPR))
        forms[name] = ([sts(l, dt) for l in range(32) for dt in range(dim_tiles)],
                       [lds(l, j) for l in range(32) for j in range(LPR)])
        print(f'D {dim_tiles * 32}: {name:10s} read-back ok {ok}, STS.64 wavefronts/round {sw}, '
              f'LDS.128 {lw}')
    print(f'D {dim_tiles * 32}: split == plain offsets: old {forms["split"] == forms["row%8"]}, '
          f'pair {forms["pair+split"] == forms["pair"]}')
