//! `hegpu.GpuPool`: the multi-GPU pool (`poly_cuda::DevicePool`) from Python. Each worker is a
//! device stream with a host thread of its own and a `Context` on its device; `setup` makes a
//! worker's state once (load the evaluation keys there), `map` spreads items over the workers
//! (each takes the next item when free) and returns the results in order. The calling thread
//! waits without the GIL; a worker holds the GIL only while its Python function runs, and the
//! context's calls inside it release it again, so the devices compute at once.

use pyo3::prelude::*;

use crate::params::Parameters;

/// Workers over every GPU (several per device), each with a context on its device.
#[pyclass(module = "hegpu", frozen)]
pub struct GpuPool {
    #[cfg(feature = "cuda")]
    pool: poly_cuda::DevicePool<WorkerState>,
}

#[cfg(feature = "cuda")]
struct WorkerState {
    context: Py<crate::context::Context>,
    state: Py<PyAny>,
}

/// A worker's failure: Python's, or the device's.
#[cfg(feature = "cuda")]
enum PoolError {
    Python(PyErr),
    Gpu(poly_cuda::GpuError),
}

#[cfg(feature = "cuda")]
impl From<poly_cuda::GpuError> for PoolError {
    fn from(error: poly_cuda::GpuError) -> Self {
        PoolError::Gpu(error)
    }
}

#[cfg(feature = "cuda")]
impl From<PyErr> for PoolError {
    fn from(error: PyErr) -> Self {
        PoolError::Python(error)
    }
}

#[cfg(feature = "cuda")]
impl From<PoolError> for PyErr {
    fn from(error: PoolError) -> PyErr {
        match error {
            PoolError::Python(error) => error,
            PoolError::Gpu(error) => crate::error::BindingError::Device(error.to_string()).into(),
        }
    }
}

#[pymethods]
impl GpuPool {
    /// `streams_per_device` workers on each GPU (`devices`: ordinals, default all). Each gets
    /// a `Context` of `params` on its device; `setup(context)`, when given, makes the worker's
    /// state (e.g. its keys loaded from bytes), passed to the function of `map`.
    #[new]
    #[pyo3(signature = (params, streams_per_device = 1, setup = None, devices = None))]
    #[cfg_attr(not(feature = "cuda"), allow(unused_variables))]
    fn py_new(
        py: Python<'_>,
        params: &Parameters,
        streams_per_device: usize,
        setup: Option<Py<PyAny>>,
        devices: Option<Vec<usize>>,
    ) -> PyResult<Self> {
        #[cfg(feature = "cuda")]
        {
            use crate::context::{Context, Device, engine_on_device};
            let ordinals = match devices {
                Some(devices) => devices,
                None => (0..crate::context::gpu_count()).collect(),
            };
            let pool =
                poly_cuda::DevicePool::new(&ordinals, streams_per_device, |device, index| -> Result<_, PoolError> {
                    // Workers are numbered device by device.
                    let ordinal = ordinals.get(index / streams_per_device.max(1)).copied().unwrap_or(0);
                    let engine = engine_on_device(&params.inner, device, false).map_err(PyErr::from)?;
                    let context =
                        Py::new(py, Context::from_engine(engine, params.inner.clone(), Device::Gpu(ordinal)))?;
                    let state = match &setup {
                        Some(setup) => setup.call1(py, (context.clone_ref(py),))?,
                        None => py.None(),
                    };
                    Ok(WorkerState { context, state })
                })?;
            Ok(Self { pool })
        }
        #[cfg(not(feature = "cuda"))]
        {
            Err(crate::error::BindingError::Device("GpuPool needs hegpu built with CUDA (the `cuda` feature)".into())
                .into())
        }
    }

    /// `(ordinal, index)` of every worker.
    #[getter]
    fn workers(&self) -> Vec<(usize, usize)> {
        #[cfg(feature = "cuda")]
        {
            self.pool.workers().iter().map(|w| (w.ordinal(), w.index())).collect()
        }
        #[cfg(not(feature = "cuda"))]
        {
            Vec::new()
        }
    }

    /// `[function(context, state, item) for item in items]`, spread over the workers; the
    /// results in the order of `items`. The first exception (in item order) is raised.
    #[cfg_attr(not(feature = "cuda"), allow(unused_variables))]
    fn map(&self, py: Python<'_>, function: Py<PyAny>, items: Vec<Py<PyAny>>) -> PyResult<Vec<Py<PyAny>>> {
        #[cfg(feature = "cuda")]
        {
            let function = &function;
            let results = py.detach(|| {
                self.pool.map(items, |worker, item| -> Result<Py<PyAny>, PoolError> {
                    Python::attach(|py| {
                        let WorkerState { context, state } = worker.state();
                        Ok(function.call1(py, (context.clone_ref(py), state.clone_ref(py), item))?)
                    })
                })
            })?;
            Ok(results)
        }
        #[cfg(not(feature = "cuda"))]
        {
            Ok(Vec::new())
        }
    }

    fn __repr__(&self) -> String {
        let workers = self.workers();
        let mut devices: Vec<usize> = workers.iter().map(|w| w.0).collect();
        devices.dedup();
        format!("GpuPool({} workers on {} devices)", workers.len(), devices.len())
    }
}
