"""Every object to bytes and back, validated against the loading context; a client on the CPU
reads what a server (another context, on any device) wrote; bad bytes are typed errors."""

import pickle

import numpy as np
import pytest

import hegpu

from conftest import NO_GPU, params_of


def test_every_object_round_trips(setup, rng):
    ctx = setup.ctx
    x = setup.random(rng)
    ct = ctx.encrypt(x, setup.pk)
    pt = ctx.encode(x)
    for obj, load in [
        (ct, ctx.load_ciphertext),
        (pt, ctx.load_plaintext),
        (setup.sk, ctx.load_secret_key),
        (setup.pk, ctx.load_public_key),
        (setup.rk, ctx.load_relin_key),
        (setup.gk, ctx.load_galois_keys),
    ]:
        data = obj.to_bytes()
        assert isinstance(data, bytes) and len(data) > 0
        again = load(data)
        assert type(again) is type(obj)
        assert again.to_bytes() == data
    assert np.array_equal(setup.slots(ctx.load_ciphertext(ct.to_bytes())), x.astype(object))


def test_parameters_as_bytes_and_pickle():
    for scheme in ("bfv", "bgv"):
        params = params_of(scheme)
        assert hegpu.Parameters.from_bytes(params.to_bytes()) == params
        assert pickle.loads(pickle.dumps(params)) == params
        assert params.scheme in repr(params) and "degree 4096" in repr(params)
    with pytest.raises(hegpu.MalformedError):
        hegpu.Parameters.from_bytes(b"not parameters")


@pytest.mark.parametrize("server_device", ["cpu", pytest.param("gpu", marks=NO_GPU)])
@pytest.mark.parametrize("scheme", ["bfv", "bgv"])
def test_client_decrypts_what_a_server_computed(scheme, server_device, rng):
    params = params_of(scheme)
    client = hegpu.Context(params, device="cpu")
    sk = client.secret_key()
    x = rng.integers(0, params.plaintext_modulus, client.slot_count, dtype=np.uint64)
    request = client.encrypt(x, sk).to_bytes()
    relin = client.relin_key(sk).to_bytes()

    # The server: its own context (parameters travel as bytes too), no secret key.
    server = hegpu.Context(hegpu.Parameters.from_bytes(params.to_bytes()), device=server_device)
    assert server.device.startswith(server_device)
    server.bind(relin_key=server.load_relin_key(relin))
    a = server.load_ciphertext(request)
    response = server.mod_switch_to(a * a + 5, 0).to_bytes()

    result = client.load_ciphertext(response)
    assert result.level == 0
    xo = x.astype(object)
    assert np.array_equal(client.decode(client.decrypt(result, sk, checked=True)), (xo * xo + 5) % params.plaintext_modulus)


def test_bad_bytes_are_refused(setup, rng):
    ctx = setup.ctx
    data = ctx.encrypt(setup.random(rng), setup.pk).to_bytes()
    with pytest.raises(hegpu.MalformedError):
        ctx.load_ciphertext(data[:-1])
    with pytest.raises(hegpu.MalformedError):
        ctx.load_ciphertext(b"")
    with pytest.raises(hegpu.HegpuError):
        ctx.load_public_key(data)
    # Another parameter set refuses the bytes.
    other = hegpu.Context(hegpu.Parameters.preset(setup.params.scheme.lower(), "secure", log_degree=13), device="cpu")
    with pytest.raises(hegpu.HegpuError):
        other.load_ciphertext(data)
