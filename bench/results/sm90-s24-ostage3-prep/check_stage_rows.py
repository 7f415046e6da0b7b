"""Exhaustive model of output_staging.cuh's stage_rows addresses (this branch: a table of eight
chunk addresses per row, pair j at entry j % 8 plus (j / 8) column blocks) against the staged
layout's definition: output column c of a row with lead `lead` (columns) goes to staged column
c + lead, i.e. chunk (c + lead) / 8 at swizzled position ((chunk % 8) ^ (row % 8)), column
(c + lead) % 8 in it. Every stored element (first and second of each pair, columns in [0, D)),
for widths 80..256, V phases and leads 0..7, lanes' q 0..3, rows 0..15."""
BB = 16384
WR = 1 << 20  # warp_rows (any 128-aligned base)
M = 2**32

def truth(row, lead, c):
    s = c + lead
    chunk, col = s // 8, s % 8
    return WR + (chunk // 8) * BB + row * 128 + ((chunk % 8) ^ (row % 8)) * 16 + col * 2

cases = 0
for width in range(80, 257, 16):
    W = width // 8
    for v_phase in range(8):
        for lead in range(8):
            D_max = width - lead
            for row in range(16):
                swizzle = (row % 8) * 16
                for q in range(4):
                    skew = 2 * q - v_phase + lead + 8
                    column_base = (WR + row * 128 + (skew % 8) * 2) % M
                    bias = skew // 8 - 1
                    table = []
                    for m in range(8):
                        chunk = m + bias
                        block = chunk // 8 if chunk >= 0 else -1
                        table.append((column_base + block * BB + (((chunk & 7) * 16) ^ swizzle)) % M)
                    first = lambda j: (table[j % 8] + (j // 8) * BB) % M
                    opens = (column_base % 16) == 14
                    second = lambda j: ((first(j + 1) - 14) if opens else (first(j) + 2)) % M
                    for j in range(W):
                        out_col = 8 * j + 2 * q - v_phase
                        for e, addr in ((0, first), (1, second)):
                            c = out_col + e
                            if 0 <= c < D_max:
                                assert addr(j) == truth(row, lead, c), (width, v_phase, lead, row, q, j, e)
                                cases += 1
print(cases, "stored elements, every address the staged layout's")
