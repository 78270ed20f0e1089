"""Example 4: BGV over a general cyclotomic ring Z_q[x]/Phi_m (HElib's rings), the modulus chain,
and switching a ciphertext between BGV and BFV under one key.

    python crates/python/examples/04_bgv_rings_and_levels.py
"""

import numpy as np

import hegpu

# m = 7781 = 31 * 251: degree phi(m) = 7500; t = 622481 = 1 mod m, so phi(m) slots.
params = hegpu.Parameters.custom(
    "bgv", m=7781, ciphertext_moduli_bits=[55, 45], special_moduli_bits=[60], plaintext_modulus=622481
)
print(params)
ctx = hegpu.Context(params, device="auto")
secret = ctx.secret_key()
ctx.bind(relin_key=ctx.relin_key(secret))
x = np.arange(ctx.slot_count, dtype=np.uint64)
cx = ctx.encrypt(x, ctx.public_key(secret))
# BGV switches modulus automatically before a product of products (mod_switching="auto").
square = cx * cx
down = ctx.mod_switch_to_next(square)
print(square, "->", down, f"({ctx.noise_budget(down, secret)} bits left)")
assert np.array_equal(ctx.decode(ctx.decrypt(down, secret)), (x * x) % params.plaintext_modulus)

# Scheme switching: BFV over the same ring and primes (power-of-two rings) and the same t.
bgv_params = hegpu.Parameters.preset("bgv", "secure", log_degree=12)
bfv_params = hegpu.Parameters.custom(
    "bfv",
    degree=bgv_params.degree,
    ciphertext_moduli=bgv_params.ciphertext_moduli,
    special_moduli=bgv_params.special_moduli,
    plaintext_modulus=bgv_params.plaintext_modulus,
)
bgv, bfv = hegpu.Context(bgv_params, device="cpu"), hegpu.Context(bfv_params, device="cpu")
seed = bytes(32)  # one seed, one secret key in both schemes
a = bgv.encrypt([1, 2, 3], bgv.secret_key(seed=seed))
in_bfv = bgv.switch_scheme(a, bfv)
print(in_bfv, "decrypts to", bfv.decode(bfv.decrypt(in_bfv, bfv.secret_key(seed=seed)))[:3])
print("ok")
