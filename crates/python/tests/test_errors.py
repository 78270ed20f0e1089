"""Bad input is a typed exception (a subclass of hegpu.HegpuError, or TypeError for values of
the wrong type), and leaves its operands usable."""

import numpy as np
import pytest

import hegpu


def test_values_outside_the_plaintext_modulus(setup):
    ctx, t = setup.ctx, setup.t
    with pytest.raises(hegpu.ValueRangeError):
        ctx.encode([t])
    with pytest.raises(hegpu.ValueRangeError):
        ctx.encode([-t])
    with pytest.raises(hegpu.ValueRangeError):
        ctx.encode(np.zeros(setup.n + 1, dtype=np.uint64))
    with pytest.raises(TypeError):
        ctx.encode(np.array([1.5, 2.0]))
    with pytest.raises(hegpu.ParameterError):
        ctx.encode(np.zeros((2, 2), dtype=np.int64))
    ct = ctx.encrypt([1, 2], setup.pk)
    with pytest.raises(hegpu.ValueRangeError):
        ct + t
    with pytest.raises(TypeError):
        ct + "one"


def test_objects_of_another_context_are_refused(setup):
    ctx = setup.ctx
    other_scheme = "bgv" if setup.params.scheme == "BFV" else "bfv"
    other = hegpu.Context(hegpu.Parameters.preset(other_scheme, "secure", log_degree=12), device="cpu")
    foreign = other.encrypt([1], other.secret_key())
    with pytest.raises(hegpu.MismatchError):
        ctx.decrypt(foreign, setup.sk)
    bigger = hegpu.Context(hegpu.Parameters.preset(setup.params.scheme, "secure", log_degree=13), device=ctx.device)
    with pytest.raises(hegpu.MismatchError):
        ctx.add(ctx.encrypt([1], setup.pk), bigger.encrypt([1], bigger.secret_key()))


def test_missing_keys():
    ctx = hegpu.Context(hegpu.Parameters.preset("bfv", "secure", log_degree=12), device="cpu")
    sk = ctx.secret_key()
    a = ctx.encrypt([3], sk)
    with pytest.raises(hegpu.ParameterError):
        ctx.mul_relin(a, a)  # no key given, none bound
    # Without a bound key, a * b is the unrelinearized product (three polynomials).
    assert (a * a).size == 3
    keys = ctx.galois_keys(sk, [3])
    with pytest.raises(hegpu.MissingKeyError):
        ctx.apply_galois(a, 5, keys)
    with pytest.raises(hegpu.MissingKeyError):
        ctx.rotate_columns(a, keys)


def test_noise_exhaustion_is_reported():
    ctx = hegpu.Context(hegpu.Parameters.preset("bfv", "secure", log_degree=12), device="cpu")
    sk = ctx.secret_key()
    ctx.bind(relin_key=ctx.relin_key(sk))
    a = ctx.encrypt([2], sk)
    with pytest.raises(hegpu.NoiseError):
        for _ in range(8):
            a = a * a
            ctx.decrypt(a, sk, checked=True)


def test_bgv_refuses_a_product_past_the_chain():
    ctx = hegpu.Context(hegpu.Parameters.preset("bgv", "secure", log_degree=12), device="cpu")
    sk = ctx.secret_key()
    ctx.bind(relin_key=ctx.relin_key(sk))
    t = ctx.params.plaintext_modulus
    a, value = ctx.encrypt([2], sk), 2
    with pytest.raises(hegpu.NoiseError):
        for _ in range(8):
            a = a * a
            value = value * value % t
    # The operand of the refused product is intact: it still decrypts to its value.
    assert ctx.decode(ctx.decrypt(a, sk, checked=True))[0] == value


def test_bad_arguments():
    params = hegpu.Parameters.preset("bgv", "secure", log_degree=12)
    with pytest.raises(hegpu.ParameterError):
        hegpu.Context(params, device="tpu")
    with pytest.raises(hegpu.ParameterError):
        hegpu.Context(params, mod_switching="sometimes")
    with pytest.raises(hegpu.ParameterError):
        hegpu.Parameters.preset("ckks")
    with pytest.raises(hegpu.ParameterError):
        hegpu.Parameters.preset("bfv", "secure", log_degree=3)
    with pytest.raises(hegpu.ParameterError):
        hegpu.Parameters.custom("bfv", m=7781, ciphertext_moduli_bits=[50], special_moduli_bits=[60], plaintext_modulus=65537)
    with pytest.raises(hegpu.ParameterError):
        hegpu.Parameters.custom("bgv", degree=4096, ciphertext_moduli_bits=[60] * 20, special_moduli_bits=[60], plaintext_modulus=65537)
    ctx = hegpu.Context(params, device="cpu")
    with pytest.raises(hegpu.ParameterError):
        ctx.sum_slots(ctx.encrypt([1], ctx.secret_key()), "diagonals")


@pytest.mark.skipif(hegpu.gpu_count() > 0, reason="a GPU is present")
def test_gpu_without_a_device_is_a_device_error():
    params = hegpu.Parameters.preset("bfv", "secure", log_degree=12)
    with pytest.raises(hegpu.DeviceError):
        hegpu.Context(params, device="gpu")
    # "auto" falls back to the CPU, and says so.
    assert hegpu.Context(params).device == "cpu"
    with pytest.raises(hegpu.DeviceError):
        hegpu.GpuPool(params)
