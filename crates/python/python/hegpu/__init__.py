"""hegpu: lattice homomorphic encryption (BFV, BGV) on GPUs, with a CPU reference for everything.

A ``Context`` holds a scheme's parameters on a backend: the first GPU when the extension was
built with CUDA and a device exists, else the CPU (``Context.device`` says which). Values go in
and out as numpy integer arrays; every key, plaintext and ciphertext writes itself as ``bytes``
(``to_bytes``) and loads back with the library's validation (``Context.load_*``), so a CPU-only
client decrypts what a GPU server computed.

    >>> import hegpu
    >>> params = hegpu.Parameters.preset("bfv", "secure", log_degree=12)
    >>> ctx = hegpu.Context(params, device="cpu")
    >>> sk = ctx.secret_key()
    >>> ctx.bind(relin_key=ctx.relin_key(sk))
    >>> x = ctx.encrypt([1, 2, 3], ctx.public_key(sk))
    >>> y = x * x + 1
    >>> ctx.decode(ctx.decrypt(y, sk))[:3].tolist()
    [2, 5, 10]
"""

from ._native import (
    Ciphertext,
    Context,
    DeviceError,
    GaloisKeys,
    GpuPool,
    HegpuError,
    MalformedError,
    MismatchError,
    MissingKeyError,
    NoiseError,
    Parameters,
    ParameterError,
    Plaintext,
    PublicKey,
    RelinKey,
    SecretKey,
    ValueRangeError,
    __version__,
    built_with_cuda,
    gpu_count,
)

__all__ = [
    "Ciphertext",
    "Context",
    "DeviceError",
    "GaloisKeys",
    "GpuPool",
    "HegpuError",
    "MalformedError",
    "MismatchError",
    "MissingKeyError",
    "NoiseError",
    "Parameters",
    "ParameterError",
    "Plaintext",
    "PublicKey",
    "RelinKey",
    "SecretKey",
    "ValueRangeError",
    "__version__",
    "built_with_cuda",
    "gpu_count",
]
