"""Type stubs of the extension module (PyO3): BFV and BGV on the CPU or a GPU."""

from typing import Any, Callable, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

IntegerValues = Union[npt.ArrayLike, Sequence[int]]
Device = Union[str, int]

def gpu_count() -> int:
    """The number of CUDA devices this build can use (0 without CUDA or without a device)."""

def built_with_cuda() -> bool:
    """Whether the extension was built with the `cuda` feature."""

class HegpuError(Exception):
    """Every error of hegpu; the library's message is the text."""

class ParameterError(HegpuError):
    """Parameters that cannot be built, or an invalid argument."""

class MismatchError(HegpuError):
    """Operands of other parameters, key sets, levels, sizes, schemes or backends."""

class MalformedError(HegpuError):
    """Bytes that do not load against the context."""

class MissingKeyError(HegpuError):
    """An operation needs a key that was not given or not generated."""

class NoiseError(HegpuError):
    """The noise budget or the modulus chain is spent: the result would not decrypt."""

class ValueRangeError(HegpuError):
    """Plaintext values outside the plaintext modulus, or too many."""

class DeviceError(HegpuError):
    """The GPU is missing, or failed."""

class Parameters:
    """A BFV or BGV parameter set: ring, ciphertext primes, special primes, plaintext modulus."""

    @staticmethod
    def preset(scheme: str, name: str = "secure", log_degree: int = 13, hybrid: bool = False) -> Parameters:
        """A preset: scheme "bfv" or "bgv"; name "secure" (128-bit), "phantom", or for BFV
        "spog-bpavr" and "spog-bvma"; log_degree is log2 N."""
    @staticmethod
    def custom(
        scheme: str,
        *,
        plaintext_modulus: int,
        degree: Optional[int] = None,
        m: Optional[int] = None,
        ciphertext_moduli_bits: Optional[Sequence[int]] = None,
        ciphertext_moduli: Optional[Sequence[int]] = None,
        special_moduli_bits: Optional[Sequence[int]] = None,
        special_moduli: Optional[Sequence[int]] = None,
        variant: str = "hps",
        allow_insecure: bool = False,
    ) -> Parameters:
        """Parameters from sizes or primes: the ring as `degree` (x^N + 1) or, for BGV, `m`
        (Phi_m); checked against the HE Standard's 128-bit table unless allow_insecure."""
    @staticmethod
    def from_bytes(data: bytes) -> Parameters:
        """The parameters of `to_bytes`, rebuilt and checked."""
    def to_bytes(self) -> bytes:
        """The parameters as bytes (JSON)."""
    @property
    def scheme(self) -> str: ...
    @property
    def degree(self) -> int: ...
    @property
    def m(self) -> int:
        """m of Phi_m; 2N for x^N + 1."""
    @property
    def ring(self) -> str: ...
    @property
    def plaintext_modulus(self) -> int: ...
    @property
    def ciphertext_moduli(self) -> List[int]: ...
    @property
    def special_moduli(self) -> List[int]: ...
    @property
    def max_level(self) -> int: ...
    @property
    def log_q(self) -> int: ...
    @property
    def is_secure_128(self) -> bool: ...

class _ContextObject:
    @property
    def context(self) -> Context:
        """The context that made or loaded the object."""
    def to_bytes(self) -> bytes:
        """The object's bytes; the context's `load_*` reads them back, validated."""

class SecretKey(_ContextObject):
    """Decrypts; keep it with its owner."""

class PublicKey(_ContextObject):
    """Encrypts."""

class RelinKey(_ContextObject):
    """Brings a product's three polynomials back to two."""

class GaloisKeys(_ContextObject):
    """Keys of automorphisms x -> x^g (rotations)."""

    @property
    def elements(self) -> List[int]:
        """The Galois elements held."""

class Plaintext(_ContextObject):
    """A polynomial modulo t (encoded slots or coefficients)."""

Operand = Union["Ciphertext", Plaintext, int]

class Ciphertext(_ContextObject):
    """A ciphertext; `a * b` of two ciphertexts relinearizes with the context's bound key
    when one is bound (else it has three polynomials)."""

    @property
    def level(self) -> int: ...
    @property
    def size(self) -> int: ...
    def __add__(self, other: Operand) -> Ciphertext: ...
    def __radd__(self, other: int) -> Ciphertext: ...
    def __sub__(self, other: Operand) -> Ciphertext: ...
    def __rsub__(self, other: int) -> Ciphertext: ...
    def __mul__(self, other: Operand) -> Ciphertext: ...
    def __rmul__(self, other: int) -> Ciphertext: ...
    def __neg__(self) -> Ciphertext: ...

class Context:
    """A scheme's parameters on a backend: device "auto" (the first GPU if any, else the CPU),
    "cpu", "gpu", "gpu:K" or an ordinal. Every computing call releases the GIL."""

    def __init__(self, params: Parameters, device: Optional[Device] = None, mod_switching: str = "auto") -> None: ...
    @property
    def params(self) -> Parameters: ...
    @property
    def scheme(self) -> str: ...
    @property
    def device(self) -> str:
        """"cpu" or "gpu:K"."""
    @property
    def top_level(self) -> int: ...
    @property
    def slot_count(self) -> int: ...
    def synchronize(self) -> None:
        """Waits for the device's queued work (for timing)."""
    # keys
    def secret_key(self, seed: Optional[bytes] = None) -> SecretKey: ...
    def public_key(self, secret: SecretKey) -> PublicKey: ...
    def relin_key(self, secret: SecretKey) -> RelinKey: ...
    def galois_keys(self, secret: SecretKey, elements: Sequence[int]) -> GaloisKeys: ...
    def rotation_keys(
        self, secret: SecretKey, steps: Optional[Sequence[int]] = None, row_swap: bool = False
    ) -> GaloisKeys: ...
    def bind(self, relin_key: Optional[RelinKey] = None, galois_keys: Optional[GaloisKeys] = None) -> None:
        """The keys the operators and the key arguments left out use."""
    # encoding
    def encode(self, values: IntegerValues) -> Plaintext:
        """Values in (-t, t) into the slots (negatives are residues); the rest hold 0."""
    def encode_coefficients(self, values: IntegerValues) -> Plaintext: ...
    def decode(self, plaintext: Plaintext, signed: bool = False) -> np.ndarray:
        """uint64 slots in [0, t), or int64 in (-t/2, t/2] with signed."""
    def decode_coefficients(self, plaintext: Plaintext, signed: bool = False) -> np.ndarray: ...
    # encryption
    def encrypt(self, plaintext: Union[Plaintext, IntegerValues], key: Union[PublicKey, SecretKey]) -> Ciphertext: ...
    def decrypt(self, ciphertext: Ciphertext, secret: SecretKey, checked: bool = False) -> Plaintext: ...
    def noise_budget(self, ciphertext: Ciphertext, secret: SecretKey) -> int: ...
    # evaluation
    def add(self, a: Ciphertext, b: Ciphertext) -> Ciphertext: ...
    def sub(self, a: Ciphertext, b: Ciphertext) -> Ciphertext: ...
    def negate(self, a: Ciphertext) -> Ciphertext: ...
    def multiply(self, a: Ciphertext, b: Ciphertext) -> Ciphertext: ...
    def relinearize(self, a: Ciphertext, key: Optional[RelinKey] = None) -> Ciphertext: ...
    def mul_relin(self, a: Ciphertext, b: Ciphertext, key: Optional[RelinKey] = None) -> Ciphertext: ...
    def evaluate_polynomial(
        self, a: Ciphertext, coefficients: Sequence[int], key: Optional[RelinKey] = None
    ) -> Ciphertext:
        """f(a) slot by slot for f = sum coefficients[i] x^i over Z_t (Paterson-Stockmeyer)."""
    def add_plain(self, a: Ciphertext, plaintext: Plaintext) -> Ciphertext: ...
    def sub_plain(self, a: Ciphertext, plaintext: Plaintext) -> Ciphertext: ...
    def mul_plain(self, a: Ciphertext, plaintext: Plaintext) -> Ciphertext: ...
    def add_scalar(self, a: Ciphertext, c: int) -> Ciphertext: ...
    def sub_scalar(self, a: Ciphertext, c: int) -> Ciphertext: ...
    def mul_scalar(self, a: Ciphertext, c: int) -> Ciphertext: ...
    def rotate_rows(self, a: Ciphertext, steps: int, keys: Optional[GaloisKeys] = None) -> Ciphertext: ...
    def rotate_columns(self, a: Ciphertext, keys: Optional[GaloisKeys] = None) -> Ciphertext: ...
    def apply_galois(self, a: Ciphertext, element: int, keys: Optional[GaloisKeys] = None) -> Ciphertext: ...
    def sum_slots(self, a: Ciphertext, over: str = "all", keys: Optional[GaloisKeys] = None) -> Ciphertext: ...
    def mod_switch_to_next(self, a: Ciphertext) -> Ciphertext: ...
    def mod_switch_to(self, a: Ciphertext, level: int) -> Ciphertext: ...
    def switch_scheme(self, a: Ciphertext, target: Context) -> Ciphertext:
        """A ciphertext of this context as one of `target` (the other scheme, same ring and t)."""
    # bytes
    def load_ciphertext(self, data: bytes) -> Ciphertext: ...
    def load_plaintext(self, data: bytes) -> Plaintext: ...
    def load_secret_key(self, data: bytes) -> SecretKey: ...
    def load_public_key(self, data: bytes) -> PublicKey: ...
    def load_relin_key(self, data: bytes) -> RelinKey: ...
    def load_galois_keys(self, data: bytes) -> GaloisKeys: ...

class GpuPool:
    """Workers over the GPUs (streams_per_device each), each with a Context on its device."""

    def __init__(
        self,
        params: Parameters,
        streams_per_device: int = 1,
        setup: Optional[Callable[[Context], Any]] = None,
        devices: Optional[Sequence[int]] = None,
    ) -> None: ...
    @property
    def workers(self) -> List[Tuple[int, int]]:
        """(ordinal, index) of every worker."""
    def map(self, function: Callable[[Context, Any, Any], Any], items: Sequence[Any]) -> List[Any]:
        """[function(context, state, item) for item in items], spread over the workers."""
