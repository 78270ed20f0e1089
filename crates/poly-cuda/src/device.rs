//! The device: a CUDA context, the one stream all work goes to, and the kernel registry.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DeviceRepr};
use cudarc::nvrtc::Ptx;

use crate::error::{GpuError, Result};

mod modules {
    include!(concat!(env!("OUT_DIR"), "/kernel_modules.rs"));
}

/// Every `kernels/*.cu` of the workspace, compiled at build time: `(module name, fatbin)`.
/// The module name is the file stem (`kernels/ntt.cu` -> `"ntt"`).
pub use modules::KERNEL_MODULES;

/// Whether the CUDA driver library can be loaded on this machine. Checked before any
/// driver call, because the dynamically loaded bindings abort when the library is missing.
pub fn driver_available() -> bool {
    // SAFETY: only tries to open the driver library by its usual names.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// The number of CUDA devices, or why there is none.
pub fn device_count() -> Result<usize> {
    if !driver_available() {
        return Err(GpuError::DriverNotLoadable);
    }
    let count = CudaContext::device_count().map_err(|e| GpuError::NoDevice { ordinal: 0, reason: e.to_string() })?;
    Ok(usize::try_from(count).unwrap_or(0))
}

/// Every kernel module, loaded once per device; functions are looked up once and cached
/// (the same idea as candle's kernel cache).
///
/// Other modules of this crate (and the sampling kernels in `kernels/sampling.cu`) get their
/// functions with [`KernelRegistry::function`]`("sampling", "sample_uniform_kernel")`: any
/// `extern "C" __global__` function of any `kernels/*.cu` is reachable this way, with no
/// registration step.
#[derive(Debug)]
pub struct KernelRegistry {
    modules: HashMap<&'static str, Arc<CudaModule>>,
    functions: Mutex<HashMap<(&'static str, &'static str), CudaFunction>>,
}

impl KernelRegistry {
    fn load(context: &Arc<CudaContext>) -> Result<Self> {
        let mut modules = HashMap::new();
        for &(name, fatbin) in KERNEL_MODULES {
            let module = context.load_module(Ptx::from_binary(fatbin.to_vec())).map_err(|e| GpuError::KernelLoad {
                module: name.to_string(),
                function: "*".to_string(),
                reason: e.to_string(),
            })?;
            modules.insert(name, module);
        }
        Ok(Self { modules, functions: Mutex::new(HashMap::new()) })
    }

    /// The names of the loaded modules.
    pub fn module_names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.modules.keys().copied()
    }

    /// The kernel `function` of module `module` (loaded on first use, then cached).
    pub fn function(&self, module: &'static str, function: &'static str) -> Result<CudaFunction> {
        let mut cache = self.functions.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(f) = cache.get(&(module, function)) {
            return Ok(f.clone());
        }
        let load_error = |reason: String| GpuError::KernelLoad {
            module: module.to_string(),
            function: function.to_string(),
            reason,
        };
        let loaded = self
            .modules
            .get(module)
            .ok_or_else(|| load_error("no such module (kernels/<module>.cu)".to_string()))?
            .load_function(function)
            .map_err(|e| load_error(e.to_string()))?;
        cache.insert((module, function), loaded.clone());
        Ok(loaded)
    }
}

/// One CUDA device with its context, its stream and its kernels.
///
/// All work of this crate is queued on [`GpuDevice::stream`], in order; downloads wait for
/// it. Cheap to share: hold it in an [`Arc`].
#[derive(Debug)]
pub struct GpuDevice {
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    kernels: KernelRegistry,
    name: String,
}

impl GpuDevice {
    /// Opens device `ordinal`: creates (retains) its primary context, a stream, and loads
    /// every kernel module. Errors: [`GpuError::DriverNotLoadable`] without a driver,
    /// [`GpuError::NoDevice`] when the ordinal does not exist, [`GpuError::KernelLoad`] when
    /// the device cannot run the embedded kernels (an architecture below sm_80 or a driver
    /// older than CUDA 13.0).
    pub fn new(ordinal: usize) -> Result<Arc<Self>> {
        if !driver_available() {
            return Err(GpuError::DriverNotLoadable);
        }
        let context = CudaContext::new(ordinal).map_err(|e| GpuError::NoDevice { ordinal, reason: e.to_string() })?;
        // One in-order stream carries all work, so cudarc's per-buffer event tracking would
        // only add two event records per kernel argument. Turned off before any allocation.
        // SAFETY: nothing has been allocated or launched in this context by us yet, and every
        // operation of this crate runs on the single stream below.
        unsafe { context.disable_event_tracking() };
        let stream = context.new_stream().map_err(|e| GpuError::driver("cuStreamCreate", e))?;
        let name = context.name().unwrap_or_else(|_| "unknown CUDA device".to_string());
        let kernels = KernelRegistry::load(&context)?;
        Ok(Arc::new(Self { context, stream, kernels, name }))
    }

    /// The device's name as the driver reports it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The cudarc context.
    pub fn cuda_context(&self) -> &Arc<CudaContext> {
        &self.context
    }

    /// The stream all work of this crate is queued on.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The kernel registry.
    pub fn kernels(&self) -> &KernelRegistry {
        &self.kernels
    }

    /// Waits for all queued work.
    pub fn synchronize(&self) -> Result<()> {
        self.stream.synchronize().map_err(|e| GpuError::driver("cuStreamSynchronize", e))
    }

    /// `(free, total)` device memory in bytes.
    pub fn memory_info(&self) -> Result<(usize, usize)> {
        self.context.mem_get_info().map_err(|e| GpuError::driver("cuMemGetInfo", e))
    }

    /// A device buffer of `len` elements, uninitialised.
    ///
    /// # Safety
    /// The caller must write every element before any of it is read.
    pub(crate) unsafe fn alloc<T: DeviceRepr>(&self, len: usize) -> Result<CudaSlice<T>> {
        let bytes = len.saturating_mul(size_of::<T>());
        // SAFETY: forwarded to the caller.
        unsafe { self.stream.alloc::<T>(len) }.map_err(|e| GpuError::alloc(bytes, e))
    }

    /// A device copy of `host`.
    pub(crate) fn upload<T: DeviceRepr>(&self, host: &[T]) -> Result<CudaSlice<T>> {
        // SAFETY: the copy below writes every element.
        let mut buffer = unsafe { self.alloc::<T>(host.len()) }?;
        self.stream.memcpy_htod(host, &mut buffer).map_err(|e| GpuError::driver("cuMemcpyHtoDAsync", e))?;
        Ok(buffer)
    }

    /// The values of `buffer`, after all queued work has finished.
    pub(crate) fn download<T: DeviceRepr + Default + Clone>(&self, buffer: &CudaSlice<T>) -> Result<Vec<T>> {
        let mut host = vec![T::default(); buffer.len()];
        self.stream.memcpy_dtoh(buffer, &mut host).map_err(|e| GpuError::driver("cuMemcpyDtoHAsync", e))?;
        self.synchronize()?;
        Ok(host)
    }

    /// A fresh device copy of `buffer` (queued).
    pub(crate) fn duplicate<T: DeviceRepr>(&self, buffer: &CudaSlice<T>) -> Result<CudaSlice<T>> {
        // SAFETY: the copy below writes every element.
        let mut copy = unsafe { self.alloc::<T>(buffer.len()) }?;
        self.stream.memcpy_dtod(buffer, &mut copy).map_err(|e| GpuError::driver("cuMemcpyDtoDAsync", e))?;
        Ok(copy)
    }
}

/// Environment variable that turns "no GPU here" into an error for [`open_device_or_skip`]:
/// set it (to anything but `0`) on a GPU machine, so that GPU tests that cannot find the
/// device fail instead of skipping. `.gpu/run.sh` sets it.
pub const REQUIRE_GPU_ENV: &str = "HEGPU_REQUIRE_GPU";

/// Opens device `ordinal` for tests and benchmarks that must run anywhere: `Ok(None)` (after
/// printing why to stderr) when the machine has no CUDA driver or no device, unless
/// [`REQUIRE_GPU_ENV`] is set, in which case that is an error too. Any other failure to open
/// an existing device is an error.
pub fn open_device_or_skip(ordinal: usize) -> Result<Option<Arc<GpuDevice>>> {
    let required = std::env::var(REQUIRE_GPU_ENV).is_ok_and(|v| !v.is_empty() && v != "0");
    match GpuDevice::new(ordinal) {
        Ok(device) => Ok(Some(device)),
        Err(error @ (GpuError::DriverNotLoadable | GpuError::NoDevice { .. })) if !required => {
            eprintln!("skipping GPU work: {error} (set {REQUIRE_GPU_ENV}=1 to make this an error)");
            Ok(None)
        }
        Err(error) => Err(error),
    }
}
