"""Example 3: rotations and slot sums. The slots form two rows of N/2; rotate_rows moves both
rows, rotate_columns swaps them, sum_slots adds them up with log2(N/2) rotations.

    python crates/python/examples/03_rotations.py
"""

import numpy as np

import hegpu

params = hegpu.Parameters.preset("bfv", "secure", log_degree=12)
ctx = hegpu.Context(params, device="auto")
secret = ctx.secret_key()
# SEAL's compact set: the powers of two both ways and the row swap; other steps are composed.
galois = ctx.rotation_keys(secret)
print(galois)
ctx.bind(galois_keys=galois)

x = np.arange(ctx.slot_count, dtype=np.uint64)
cx = ctx.encrypt(x, secret)
half = ctx.slot_count // 2
rows = x.reshape(2, half)

rotated = ctx.decode(ctx.decrypt(ctx.rotate_rows(cx, 3), secret)).reshape(2, half)
assert np.array_equal(rotated, np.roll(rows, -3, axis=1))
print("rotate_rows(3):", rotated[0, :5], "...")

swapped = ctx.decode(ctx.decrypt(ctx.rotate_columns(cx), secret)).reshape(2, half)
assert np.array_equal(swapped, rows[::-1])

total = ctx.decode(ctx.decrypt(ctx.sum_slots(cx, "all"), secret))
assert set(total.tolist()) == {int(x.sum()) % params.plaintext_modulus}
print("sum of all slots, in every slot:", total[0])
print("ok")
