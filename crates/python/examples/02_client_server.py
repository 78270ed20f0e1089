"""Example 2: a client and a server that exchange only bytes. The server may run on a GPU; the
client decrypts on the CPU what it sent back. Loading validates everything against the context.

    python crates/python/examples/02_client_server.py
"""

import numpy as np

import hegpu


def server(params_bytes, relin_bytes, x_bytes, y_bytes):
    """No secret key here: parameters, an evaluation key and ciphertexts, all as bytes."""
    ctx = hegpu.Context(hegpu.Parameters.from_bytes(params_bytes), device="auto")
    ctx.bind(relin_key=ctx.load_relin_key(relin_bytes))
    x, y = ctx.load_ciphertext(x_bytes), ctx.load_ciphertext(y_bytes)
    result = x * y + x
    # Down to one prime: smaller on the wire (the client only decrypts it).
    return ctx.mod_switch_to(result, 0).to_bytes(), ctx.device


params = hegpu.Parameters.preset("bgv", "secure", log_degree=13)
client = hegpu.Context(params, device="cpu")
secret = client.secret_key()
x = np.arange(client.slot_count, dtype=np.uint64) % 1000
y = (7 * np.arange(client.slot_count, dtype=np.uint64) + 3) % 1000
# Symmetric encryption (the owner of the secret key may use it).
request = [client.encrypt(v, secret).to_bytes() for v in (x, y)]
relin = client.relin_key(secret).to_bytes()
print(f"client -> server: relinearization key {len(relin)} bytes, two ciphertexts of {len(request[0])} bytes")

response, where = server(params.to_bytes(), relin, *request)
print(f"server ({where}) -> client: {len(response)} bytes")

result = client.load_ciphertext(response)
got = client.decode(client.decrypt(result, secret, checked=True))
assert np.array_equal(got, (x * y + x) % params.plaintext_modulus)
print("x * y + x =", got[:6], "...")

try:
    client.load_ciphertext(response[:-1])
except hegpu.MalformedError as error:
    print("truncated bytes refused:", error)
print("ok")
