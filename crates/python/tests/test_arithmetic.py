"""Every operation of both schemes, on every device, against the same arithmetic on numpy
vectors modulo t (random slot vectors drawn by hypothesis)."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import hegpu

SETTINGS = settings(max_examples=8, deadline=None)


def mod(values, t):
    return np.array([int(v) % t for v in values], dtype=object)


def vectors(n, t):
    return st.lists(st.integers(min_value=0, max_value=t - 1), min_size=1, max_size=n).map(
        lambda v: np.array(v + [0] * (n - len(v)), dtype=np.uint64)
    )


def test_encode_decode_roundtrip(setup, rng):
    ctx = setup.ctx
    x = setup.random(rng)
    assert np.array_equal(ctx.decode(ctx.encode(x)), x)
    assert np.array_equal(ctx.decode_coefficients(ctx.encode_coefficients(x)), x)
    signed = ctx.decode(ctx.encode([-1, -2, 3]), signed=True)
    assert signed.dtype == np.int64 and signed[:3].tolist() == [-1, -2, 3]
    # Fewer values than slots: the rest are 0; any integer dtype and plain lists are taken.
    for values in ([5, 6], np.array([5, 6], dtype=np.int8), np.array([5, 6], dtype=np.uint16)):
        out = ctx.decode(ctx.encode(values))
        assert out[:2].tolist() == [5, 6] and not out[2:].any()


def test_public_and_symmetric_encryption(setup, rng):
    ctx = setup.ctx
    x = setup.random(rng)
    for key in (setup.pk, setup.sk):
        ct = ctx.encrypt(x, key)
        assert ct.level == ctx.top_level and ct.size == 2
        assert np.array_equal(setup.slots(ct), mod(x, setup.t))
    assert ctx.noise_budget(ctx.encrypt(x, setup.pk), setup.sk) > 0


def test_arithmetic_against_numpy(setup):
    t, n, ctx = setup.t, setup.n, setup.ctx

    @SETTINGS
    @given(vectors(n, t), vectors(n, t), st.integers(min_value=-(t - 1), max_value=t - 1))
    def check(x, y, c):
        a, b = ctx.encrypt(x, setup.pk), ctx.encrypt(y, setup.pk)
        xo, yo = x.astype(object), y.astype(object)
        pt = ctx.encode(y)
        expected = {
            "add": (a + b, xo + yo),
            "sub": (a - b, xo - yo),
            "neg": (-a, -xo),
            "mul": (a * b, xo * yo),
            "add_plain": (a + pt, xo + yo),
            "sub_plain": (ctx.sub_plain(a, pt), xo - yo),
            "mul_plain": (a * pt, xo * yo),
            "add_scalar": (a + c, xo + c),
            "radd_scalar": (c + a, xo + c),
            "sub_scalar": (a - c, xo - c),
            "rsub_scalar": (c - a, c - xo),
            "mul_scalar": (a * c, xo * c),
            "rmul_scalar": (c * a, xo * c),
        }
        for name, (ct, want) in expected.items():
            assert np.array_equal(setup.slots(ct), mod(want, t)), name

    check()


def test_multiply_then_relinearize(setup, rng):
    ctx, t = setup.ctx, setup.t
    x, y = setup.random(rng), setup.random(rng)
    a, b = ctx.encrypt(x, setup.pk), ctx.encrypt(y, setup.pk)
    product = ctx.multiply(a, b)
    assert product.size == 3
    relinearized = ctx.relinearize(product)
    assert relinearized.size == 2
    want = mod(x.astype(object) * y.astype(object), t)
    assert np.array_equal(setup.slots(product), want)
    assert np.array_equal(setup.slots(relinearized), want)
    assert np.array_equal(setup.slots(ctx.mul_relin(a, b, setup.rk)), want)


def test_rotations_and_sums(setup, rng):
    ctx, t, n = setup.ctx, setup.t, setup.n
    x = setup.random(rng)
    rows = x.reshape(2, n // 2).astype(object)
    a = ctx.encrypt(x, setup.pk)
    for steps in (1, -3, 7, 100):
        want = np.roll(rows, -steps, axis=1).reshape(-1)
        assert np.array_equal(setup.slots(ctx.rotate_rows(a, steps)), want), steps
    assert np.array_equal(setup.slots(ctx.rotate_columns(a)), rows[::-1].reshape(-1))
    total = int(sum(int(v) for v in x)) % t
    assert set(setup.slots(ctx.sum_slots(a, "all")).tolist()) == {total}
    row_sums = [int(sum(int(v) for v in row)) % t for row in rows]
    assert setup.slots(ctx.sum_slots(a, "rows")).reshape(2, -1)[:, 0].tolist() == row_sums
    # The Galois element of one row rotation: 3 over x^N + 1.
    assert np.array_equal(setup.slots(ctx.apply_galois(a, 3)), setup.slots(ctx.rotate_rows(a, 1)))
    own = ctx.rotation_keys(setup.sk, steps=[5])
    assert own.elements and np.array_equal(setup.slots(ctx.rotate_rows(a, 5, own)), np.roll(rows, -5, axis=1).reshape(-1))


def test_mod_switching_keeps_the_message(setup, rng):
    ctx = setup.ctx
    x = setup.random(rng)
    a = ctx.encrypt(x, setup.pk)
    down = ctx.mod_switch_to_next(a)
    assert down.level == a.level - 1
    assert np.array_equal(setup.slots(down), x.astype(object))
    assert ctx.mod_switch_to(a, 0).level == 0
    # A product spends budget; switching keeps the message.
    product = a * a
    assert ctx.noise_budget(product, setup.sk) < ctx.noise_budget(a, setup.sk)


@pytest.mark.parametrize("device", ["cpu"])
def test_scheme_switching_both_ways(device, rng):
    bgv_params = hegpu.Parameters.preset("bgv", "secure", log_degree=12)
    # BFV over BGV's ring and primes with the same t: the twin the switch needs.
    bfv_params = hegpu.Parameters.custom(
        "bfv",
        degree=bgv_params.degree,
        ciphertext_moduli=bgv_params.ciphertext_moduli,
        special_moduli=bgv_params.special_moduli,
        plaintext_modulus=bgv_params.plaintext_modulus,
    )
    bgv, bfv = hegpu.Context(bgv_params, device=device), hegpu.Context(bfv_params, device=device)
    sk = bgv.secret_key(seed=bytes(32))
    # The same seed gives the same secret in both schemes (the core samples it).
    sk_bfv = bfv.secret_key(seed=bytes(32))
    x = rng.integers(0, bgv_params.plaintext_modulus, bgv.slot_count, dtype=np.uint64)
    a = bgv.encrypt(x, bgv.public_key(sk))
    in_bfv = bgv.switch_scheme(a, bfv)
    assert in_bfv.context.scheme == "BFV"
    assert np.array_equal(bfv.decode(bfv.decrypt(in_bfv, sk_bfv)), x)
    back = bfv.switch_scheme(in_bfv * 3, bgv)
    assert np.array_equal(bgv.decode(bgv.decrypt(back, sk)), (x.astype(object) * 3) % bgv_params.plaintext_modulus)


def test_bgv_over_a_cyclotomic_ring():
    # m = 7781 = 31 * 251 (phi = 7500); t = 1 mod m, so Phi_m splits: 7500 slots.
    params = hegpu.Parameters.custom(
        "bgv", m=7781, ciphertext_moduli_bits=[55, 45], special_moduli_bits=[60], plaintext_modulus=622481
    )
    assert params.ring == "Phi_7781(x)" and params.degree == 7500 and params.is_secure_128
    ctx = hegpu.Context(params, device="cpu")
    sk = ctx.secret_key()
    ctx.bind(relin_key=ctx.relin_key(sk))
    x = np.arange(ctx.slot_count, dtype=np.uint64) % params.plaintext_modulus
    a = ctx.encrypt(x, ctx.public_key(sk))
    got = ctx.decode(ctx.decrypt(a * a + a, sk, checked=True)).astype(object)
    xo = x.astype(object)
    assert np.array_equal(got, (xo * xo + xo) % params.plaintext_modulus)


def test_polynomial_against_numpy(setup, rng):
    # Degree 2 with small centered coefficients fits the budget of the small presets (a scalar
    # c multiplies the noise by |c|); the Rust tests take higher degrees and any coefficients.
    t, ctx = setup.t, setup.ctx
    x = setup.random(rng)
    coefficients = [int(c) % t for c in rng.integers(-4, 5, 3)]
    ct = ctx.evaluate_polynomial(ctx.encrypt(x, setup.pk), coefficients)
    xo = x.astype(object)
    expected = mod(coefficients[0] + coefficients[1] * xo + coefficients[2] * xo * xo, t)
    assert np.array_equal(setup.slots(ct), expected)
    # Coefficients are reduced modulo t; a constant gives the constant in every slot.
    constant = ctx.evaluate_polynomial(ctx.encrypt(x, setup.pk), [t + 4])
    assert np.array_equal(setup.slots(constant), mod([4] * setup.n, t))
