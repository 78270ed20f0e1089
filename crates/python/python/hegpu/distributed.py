"""Scale-out over processes and hosts with Dask (``pip install hegpu[distributed]``).

One Dask worker per GPU (or per CPU process) holds a ``Context`` and the evaluation keys,
loaded once when the worker joins (a worker plugin); ciphertexts travel as bytes, so a worker
on another host needs nothing but the parameters' and keys' bytes. The results are the bytes a
single process computes: the evaluation is deterministic, so they are equal byte for byte.

    >>> from dask.distributed import Client, LocalCluster
    >>> client = Client(LocalCluster(n_workers=2, threads_per_worker=1))
    >>> evaluator = hegpu.distributed.Evaluator(client, params, relin_key=rk)
    >>> results = evaluator.map(lambda ctx, ct: ct * ct + 1, ciphertexts)  # list of bytes

Why Dask rather than Ray: docs/decisions/0007-dask-scale-out.md.
"""

from __future__ import annotations

import uuid
from typing import Any, Callable, Iterable, List, Optional, Sequence, Union

from . import _native
from ._native import Ciphertext, Context, GaloisKeys, Parameters, RelinKey

__all__ = ["Evaluator", "WorkerContext", "local_cluster", "worker_device"]

Keys = Optional[Union[bytes, RelinKey, GaloisKeys]]


def _as_bytes(value: Keys) -> Optional[bytes]:
    if value is None or isinstance(value, (bytes, bytearray)):
        return value
    return value.to_bytes()


def worker_device(worker: Any, device: str) -> Union[str, int]:
    """The device a worker's context opens: ``"per-worker"`` gives worker ``k`` (its name, as
    ``LocalCluster`` numbers them) the GPU ``k`` modulo the GPUs of its host; anything else is
    passed to ``Context`` as it is (``"auto"``, ``"cpu"``, ``"gpu:K"``)."""
    if device != "per-worker":
        return device
    count = _native.gpu_count()
    if count == 0:
        return "cpu"
    try:
        index = int(worker.name)
    except (TypeError, ValueError):
        index = sum(str(worker.name).encode())
    return index % count


class WorkerContext:
    """What a worker holds for one ``Evaluator``: its context (keys bound) and its keys."""

    def __init__(self, params: bytes, relin_key: Optional[bytes], galois_keys: Optional[bytes], device: Any):
        self.context = Context(Parameters.from_bytes(params), device=device)
        self.relin_key = self.context.load_relin_key(relin_key) if relin_key is not None else None
        self.galois_keys = self.context.load_galois_keys(galois_keys) if galois_keys is not None else None
        self.context.bind(relin_key=self.relin_key, galois_keys=self.galois_keys)


def _plugin_class():
    # Imported here so that `import hegpu` does not need Dask.
    from distributed import WorkerPlugin

    class ContextPlugin(WorkerPlugin):
        """Builds the worker's ``WorkerContext`` once, when the worker starts or joins."""

        def __init__(self, name, params, relin_key, galois_keys, device):
            self.name = name
            self.params = params
            self.relin_key = relin_key
            self.galois_keys = galois_keys
            self.device = device
            self.state = None

        def setup(self, worker):
            device = worker_device(worker, self.device)
            self.state = WorkerContext(self.params, self.relin_key, self.galois_keys, device)

        def teardown(self, worker):
            self.state = None

    return ContextPlugin


def _apply(plugin_name: str, function: Callable, data: bytes) -> bytes:
    """Runs on a worker: the ciphertext loaded against the worker's context, ``function``
    applied, the result's bytes returned."""
    from distributed import get_worker

    state = get_worker().plugins[plugin_name].state
    context = state.context
    result = function(context, context.load_ciphertext(data))
    return result.to_bytes()


class Evaluator:
    """Evaluation on a Dask cluster: every worker holds a context of ``params`` with the
    evaluation keys (given as objects or bytes) loaded and bound once; ``map`` sends
    ciphertexts (objects or bytes) and returns the results' bytes, in order.

    ``device`` is each worker's: ``"per-worker"`` (worker ``k`` on GPU ``k``, the CPU without
    GPUs), or any ``Context`` device (``"auto"``, ``"cpu"``, ``"gpu:K"``). ``resources``, when
    given, is passed to every task (e.g. ``{"GPU": 1}`` on workers started with that resource).
    ``direct`` sends ciphertexts to and from the workers without the scheduler in between (set
    it to False when the client cannot reach the workers).
    """

    def __init__(
        self,
        client: Any,
        params: Parameters,
        *,
        relin_key: Keys = None,
        galois_keys: Keys = None,
        device: str = "per-worker",
        resources: Optional[dict] = None,
        direct: bool = True,
    ):
        self.client = client
        self.direct = direct
        self.params = params
        self.name = f"hegpu-{uuid.uuid4().hex}"
        self.resources = resources
        plugin = _plugin_class()(
            self.name, params.to_bytes(), _as_bytes(relin_key), _as_bytes(galois_keys), device
        )
        client.register_plugin(plugin, name=self.name)

    def submit(self, function: Callable[[Context, Ciphertext], Ciphertext], ciphertext: Union[bytes, Ciphertext]):
        """One ciphertext's future (its result's bytes)."""
        data = _as_bytes(ciphertext)
        return self.client.submit(_apply, self.name, function, data, pure=False, resources=self.resources)

    def map(
        self, function: Callable[[Context, Ciphertext], Ciphertext], ciphertexts: Iterable[Union[bytes, Ciphertext]]
    ) -> List[bytes]:
        """``[function(context, c).to_bytes() for c in ciphertexts]``, spread over the workers.
        ``function`` runs on the workers (Dask pickles it; a lambda or a local function is
        sent by value)."""
        data: Sequence[bytes] = [_as_bytes(c) for c in ciphertexts]
        # The ciphertexts go straight to the workers (scatter, direct: not through the
        # scheduler, not inside the task graph) and the results straight back; each task names
        # its ciphertext's future. At 6.7 MB a ciphertext this is 2-3x faster than either
        # (measured with a local cluster; docs/performance.md).
        stored = self.client.scatter(list(data), direct=self.direct, hash=False)
        futures = self.client.map(
            _apply,
            [self.name] * len(data),
            [function] * len(data),
            stored,
            pure=False,
            resources=self.resources,
        )
        return self.client.gather(futures, direct=self.direct)

    def close(self) -> None:
        """Drops the workers' contexts and keys."""
        self.client.unregister_worker_plugin(self.name)


def local_cluster(workers: Optional[int] = None, **kwargs: Any):
    """A ``dask.distributed.Client`` on a local cluster of processes with one thread each: one
    worker per GPU of this host by default (two without GPUs). Extra arguments go to
    ``LocalCluster``."""
    from distributed import Client, LocalCluster

    if workers is None:
        workers = max(_native.gpu_count(), 2)
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, **kwargs)
    return Client(cluster)
