"""Exhaustive model of output_staging.cuh's store_rows whole-word passes: main's (a warp's rows
laid end to end, lane l on slot l + 32 p) vs this branch's (a row a pass, two where a row has
<= 16 words): the same (output word, staged chunk) pairs stored, for every width of the staging
buckets, head dim, first-row lead, row stride mod 16 and row count. Also every chunk a lane
reads (stored or not) lies inside the warp's staged rows of the O tile."""
BB = 16384  # column block bytes (any multiple of 2048 gives the same result)

def staged_chunk(row, k):
    return (k // 8) * BB + row * 128 + (((k % 8) ^ (row % 8)) * 16)

def old(W, D, lead0, stride16, rows):
    out = set()
    for p in range(16 * W // 32):
        for lane in range(32):
            slot = p * 32 + lane
            row, k = slot // W, slot % W
            if row >= rows: continue
            fb = (lead0 + row * stride16) % 16
            if (k == 0 and fb != 0) or fb + 2 * D < (k + 1) * 16: continue
            out.add((row, 16 * k - fb, staged_chunk(row, k)))
    return out

def new(W, D, lead0, stride16, rows):
    out = set(); reads = set()
    L = 32 if W > 16 else 16
    R = 32 // L
    for first_row in range(0, 16, R):
        for lane in range(32):
            word, pass_row = lane % L, lane // L
            sk = word if word < W else W - 1
            lane_chunks = pass_row * 128 + (sk // 8) * BB
            lane_swz = ((sk ^ pass_row) % 8) * 16
            chunk = lane_chunks + first_row * 128 + (lane_swz ^ ((first_row % 8) * 16))
            reads.add(chunk)
            row = first_row + pass_row
            fb = (lead0 + row * stride16) % 16
            offset = word * 16 - fb
            whole = first_row < rows - pass_row and (offset % 2**32) <= (2 * D - 16) % 2**32
            if whole:
                assert word < W
                out.add((row, offset, chunk))
    return out, reads

cases = 0
for width in list(range(80, 257, 16)):
    W = width // 8
    tile = {staged_chunk(r, k) for r in range(16) for k in range(W)}
    for D in range(max(9, width - 30), width + 1):
        for lead0 in range(0, 16, 2):
            for stride16 in range(0, 16, 2):
                # lead + D <= width for every row
                if any(((lead0 + r * stride16) % 16) // 2 + D > width for r in range(16)):
                    continue
                for rows in range(17):
                    o = old(W, D, lead0, stride16, rows)
                    n, reads = new(W, D, lead0, stride16, rows)
                    assert o == n, (width, D, lead0, stride16, rows)
                    assert reads <= tile, (width, D)
                    cases += 1
print(cases, "cases, stores identical, reads inside the staged rows")
