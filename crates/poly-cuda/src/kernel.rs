//! Kernel handles and the one launch path of every GPU crate.
//!
//! The kernels are compiled by the `hegpu-kernels` crate (re-exported as
//! [`crate::hegpu_kernels`]), one [`Module`] per `.cu` file. The crate that
//! launches a module's kernels loads that module, once per device: this crate its own
//! (`ntt`, `dgt`, `elementwise`, `sampling`) when the device opens, other crates theirs on
//! first use through [`GpuDevice::kernel_set`](crate::GpuDevice::kernel_set).
//!
//! A module's kernels are reached through a [`KernelSet`]: a struct with one [`Kernel`]
//! field per kernel, written with [`kernel_set!`](crate::kernel_set). Every name is looked
//! up once, when the module is loaded (a misspelt name is a [`GpuError::KernelLoad`] naming
//! it), and code names a kernel by a field, which the compiler checks. A launch is one field
//! access: no lookup or lock.
//!
//! Every launch goes through [`Kernel::builder`] and [`Launch::launch`] (`cuLaunchKernelEx`),
//! which turns a failure into [`GpuError::Driver`] naming the kernel, and launches the kernels
//! that wait for their inputs with a programmatic dependency on the kernel before them
//! ([`waits_for_inputs`], [`GpuTuning::programmatic_launches`](crate::GpuTuning::programmatic_launches)). A parameter struct passed by value is
//! a `bytemuck::Pod` type pushed with [`Launch::arg_pod`].

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use std::ffi::c_void;

use bytemuck::Pod;
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut,
    DriverError, LaunchConfig,
};
use cudarc::nvrtc::Ptx;
use hegpu_kernels::Module;

use crate::error::{GpuError, Result};

/// Threads per block of the one-dimensional kernels of every crate: the element-wise,
/// sampling and DGT product kernels, `bfv.cu`'s, and those of `rns.cu` and `keyswitch.cu`,
/// whose `__launch_bounds__` (`RNS_THREADS`, `KS_THREADS`) must equal it.
pub const THREADS: u32 = 256;

/// Largest grid y (and z) dimension.
pub const MAX_GRID_Y: usize = 65_535;

/// One kernel of a loaded module: its name (for errors) and its function handle.
#[derive(Debug, Clone)]
pub struct Kernel {
    name: &'static str,
    function: CudaFunction,
    /// Set once its parameter count is in [`parameter_count`]'s registry.
    counted: Arc<AtomicBool>,
    /// Launched with a programmatic dependency on the kernel before it ([`waits_for_inputs`]).
    programmatic: bool,
}

/// The parameter counts of the kernels launched so far, by function handle: what a recorded
/// graph's kernel node needs to walk its parameters (`cuFuncGetParamInfo` takes an index and
/// fails past the last one, and CUDA 13.0 has no call for the count).
fn parameter_counts() -> &'static Mutex<HashMap<usize, usize>> {
    static COUNTS: OnceLock<Mutex<HashMap<usize, usize>>> = OnceLock::new();
    COUNTS.get_or_init(Default::default)
}

/// The number of parameters of the kernel `function`, if a kernel with that handle has been
/// launched through [`Launch::launch`] or [`Kernel::launch_clustered`] in this process.
pub fn parameter_count(function: cudarc::driver::sys::CUfunction) -> Option<usize> {
    parameter_counts().lock().unwrap_or_else(PoisonError::into_inner).get(&(function as usize)).copied()
}

/// The kernels launched with a programmatic dependency: by module, every kernel whose name
/// starts with one of the prefixes. Each starts with `dependent_launch::wait_for_inputs` (after
/// work on constant tables only); a kernel listed here that read or wrote another kernel's
/// memory before that wait would race with it. Element-wise sums, differences, negations and
/// copies (`ew_add`, `ew_sub`, `ew_add_sub_many`, `ew_neg`, `ew_copy_many`) wait too but are
/// not listed: they mostly run alone (Add, Sub), where a programmatic launch gains nothing, and
/// at N <= 8192 they measured 5-8% slower launched so (BFV, docs/perf, programmatic launches).
const PROGRAMMATIC_KERNELS: &[(&str, &[&str])] = &[
    ("ntt", &["ntt_fwd_", "ntt_inv_"]),
    ("rns", &["rns_"]),
    ("elementwise", &["ew_mul", "ew_tensor", "ew_gauss_mul", "ew_scalar_mul", "ew_automorphism"]),
    ("bgv", &["bgv_reduce_phase"]),
];

/// Whether kernel `name` of module `module` is in `PROGRAMMATIC_KERNELS` (launched programmatically).
pub fn waits_for_inputs(module: &str, name: &str) -> bool {
    PROGRAMMATIC_KERNELS
        .iter()
        .any(|(m, prefixes)| *m == module && prefixes.iter().any(|prefix| name.starts_with(prefix)))
}

impl Kernel {
    /// Registers this kernel's parameter count on its first launch (one atomic load after).
    fn count_parameters(&self, count: usize) {
        if !self.counted.load(Ordering::Relaxed) {
            let key = self.function.cu_function() as usize;
            parameter_counts().lock().unwrap_or_else(PoisonError::into_inner).insert(key, count);
            self.counted.store(true, Ordering::Relaxed);
        }
    }
}

impl Kernel {
    /// The kernel's `extern "C"` name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The cudarc function handle.
    pub fn function(&self) -> &CudaFunction {
        &self.function
    }

    /// Whether its launches outside graph capture carry a programmatic dependency on the kernel
    /// before them (programmatic dependent launch, sm_90): it may start while that kernel
    /// finishes, and waits for it in `dependent_launch::wait_for_inputs`.
    pub fn is_programmatic(&self) -> bool {
        self.programmatic
    }

    /// A launch of this kernel on `stream`: push the arguments, then [`Launch::launch`].
    pub fn builder<'a>(&'a self, stream: &'a CudaStream) -> Launch<'a> {
        Launch { kernel: self, stream, params: Vec::new(), addresses: Vec::new() }
    }
}

/// One kernel parameter as the driver takes it.
#[derive(Debug, Clone, Copy)]
enum Param {
    /// The address of a value borrowed for the launch's lifetime.
    Value(*mut c_void),
    /// A device buffer: its address, at this index of [`Launch`]'s `addresses`.
    Device(usize),
}

/// A value [`Launch::arg`] takes: a reference to a scalar (passed by value) or a device buffer
/// (its address is passed).
pub trait KernelArg<'a> {
    /// The parameter, with a device buffer's address pushed to `addresses`.
    #[doc(hidden)]
    fn push(self, stream: &CudaStream, params: &mut Vec<ParamSlot>, addresses: &mut Vec<u64>);
}

/// A parameter slot of a [`Launch`] (opaque).
#[derive(Debug, Clone, Copy)]
pub struct ParamSlot(Param);

macro_rules! scalar_kernel_args {
    ($($t:ty),+) => {$(
        impl<'a> KernelArg<'a> for &'a $t {
            fn push(self, _stream: &CudaStream, params: &mut Vec<ParamSlot>, _addresses: &mut Vec<u64>) {
                params.push(ParamSlot(Param::Value(self as *const $t as *mut c_void)));
            }
        }
    )+};
}
scalar_kernel_args!(u64, i64, u32, i32, u16, i16, u8, i8, usize, isize, f64, f32);

/// An array of words passed by value (a key, say).
impl<'a, const N: usize> KernelArg<'a> for &'a [u32; N] {
    fn push(self, _stream: &CudaStream, params: &mut Vec<ParamSlot>, _addresses: &mut Vec<u64>) {
        params.push(ParamSlot(Param::Value(self.as_ptr() as *mut c_void)));
    }
}

macro_rules! buffer_kernel_args {
    ($($t:ty),+) => {$(
        impl<'a, 'b, T> KernelArg<'a> for $t {
            fn push(self, stream: &CudaStream, params: &mut Vec<ParamSlot>, addresses: &mut Vec<u64>) {
                params.push(ParamSlot(Param::Device(addresses.len())));
                addresses.push(self.device_ptr(stream).0);
            }
        }
    )+};
}
buffer_kernel_args!(&'b CudaSlice<T>, &'b mut CudaSlice<T>, &'b CudaView<'_, T>, &'b mut CudaViewMut<'_, T>);

/// The arguments of one launch of a [`Kernel`], in order, and the kernel (for the error's name,
/// the parameter count and whether it launches programmatically).
#[derive(Debug)]
pub struct Launch<'a> {
    kernel: &'a Kernel,
    stream: &'a CudaStream,
    params: Vec<ParamSlot>,
    addresses: Vec<u64>,
}

impl<'a> Launch<'a> {
    /// Pushes the next argument: a reference to a scalar passed by value, or a device buffer.
    pub fn arg<T: KernelArg<'a>>(&mut self, value: T) -> &mut Self {
        value.push(self.stream, &mut self.params, &mut self.addresses);
        self
    }

    /// Pushes a parameter struct passed by value (`kernel(const Params p)`): its bytes, which
    /// must be laid out as the C struct (same fields in the same order; device addresses as
    /// `u64`).
    pub fn arg_pod<T: Pod>(&mut self, value: &'a T) -> &mut Self {
        self.params.push(ParamSlot(Param::Value(value as *const T as *mut c_void)));
        self
    }

    /// Queues the kernel with `config` (`cuLaunchKernelEx`): with a programmatic dependency on
    /// the kernel before it where the kernel [is programmatic](Kernel::is_programmatic) and the
    /// stream is not capturing a graph. A failure is [`GpuError::Driver`] naming the kernel.
    ///
    /// # Safety
    /// The pushed arguments must match the kernel's parameters in number, order and type, and
    /// every memory access the kernel makes with these arguments and this grid must be to live
    /// device memory it may use (each launch site says why in its `// SAFETY:` comment).
    pub unsafe fn launch(&mut self, config: LaunchConfig) -> Result<()> {
        use cudarc::driver::sys;
        let mut pointers: Vec<*mut c_void> = self
            .params
            .iter()
            .map(|slot| match slot.0 {
                Param::Value(pointer) => pointer,
                Param::Device(index) => &self.addresses[index] as *const u64 as *mut c_void,
            })
            .collect();
        let attribute = (self.kernel.programmatic && !capturing(self.stream)).then(|| {
            // SAFETY: an all-zero attribute is a valid value of this plain C struct and union.
            let mut attribute: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
            attribute.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
            attribute.value.programmaticStreamSerializationAllowed = 1;
            attribute
        });
        // SAFETY: `pointers` holds one pointer per pushed argument, to a value borrowed for 'a
        // or held by `self`, both alive for the call; the rest is the caller's.
        unsafe { launch_ex(self.kernel, self.stream, config, attribute, pointers.as_mut_ptr()) }?;
        self.kernel.count_parameters(self.params.len());
        Ok(())
    }
}

/// `cuLaunchKernelEx` of `kernel` on `stream` with `config`, at most one launch attribute, and
/// the parameter array `params`. A failure is [`GpuError::Driver`] naming the kernel.
///
/// # Safety
/// `params` must hold one pointer per kernel parameter, to a value of its type, all alive for
/// the call (the driver copies them before it returns); the rest as [`Launch::launch`].
unsafe fn launch_ex(
    kernel: &Kernel,
    stream: &CudaStream,
    config: LaunchConfig,
    mut attribute: Option<cudarc::driver::sys::CUlaunchAttribute>,
    params: *mut *mut c_void,
) -> Result<()> {
    use cudarc::driver::sys;
    stream.context().bind_to_thread().map_err(|e| launch_error(kernel.name, e))?;
    let (attrs, num_attrs) = match attribute.as_mut() {
        Some(attribute) => (attribute as *mut sys::CUlaunchAttribute, 1),
        None => (std::ptr::null_mut(), 0),
    };
    let launch = sys::CUlaunchConfig {
        gridDimX: config.grid_dim.0,
        gridDimY: config.grid_dim.1,
        gridDimZ: config.grid_dim.2,
        blockDimX: config.block_dim.0,
        blockDimY: config.block_dim.1,
        blockDimZ: config.block_dim.2,
        sharedMemBytes: config.shared_mem_bytes,
        hStream: stream.cu_stream(),
        attrs,
        numAttrs: num_attrs,
    };
    // SAFETY: `launch` and the attribute it points at outlive the call; `params` is the
    // caller's.
    unsafe { sys::cuLaunchKernelEx(&launch, kernel.function.cu_function(), params, std::ptr::null_mut()) }
        .result()
        .map_err(|e| launch_error(kernel.name, e))?;
    crate::launch_trace::record(kernel.name);
    Ok(())
}

/// Whether `stream` is capturing a graph: the recorded graphs keep ordinary edges (the
/// decryption's are made programmatic after recording, graph.rs).
fn capturing(stream: &CudaStream) -> bool {
    use cudarc::driver::sys;
    let mut status = sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
    // SAFETY: the stream is live (borrowed) and `status` receives one enum value.
    let queried = unsafe { sys::cuStreamIsCapturing(stream.cu_stream(), &mut status) };
    // A failed query counts as capturing: the launch then takes the ordinary order.
    queried != sys::CUresult::CUDA_SUCCESS || status != sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE
}

impl Kernel {
    /// Queues this kernel, whose one parameter is the by-value struct `params`
    /// (`kernel(const __grid_constant__ Params p)`, laid out as the C struct), with its blocks
    /// grouped into thread block clusters of `cluster` blocks (`cuLaunchKernelEx`; cudarc's
    /// builder has no cluster attribute). The grid must be a multiple of `cluster` in each
    /// dimension. A failure is [`GpuError::Driver`] naming the kernel.
    ///
    /// # Safety
    /// As [`Launch::launch`]: `params` must match the kernel's parameter, and every memory
    /// access the kernel makes with it and this grid must be to live device memory it may use.
    pub unsafe fn launch_clustered<T: Pod>(
        &self,
        stream: &CudaStream,
        config: LaunchConfig,
        cluster: (u32, u32, u32),
        params: &T,
    ) -> Result<()> {
        use cudarc::driver::sys;
        // SAFETY: an all-zero attribute is a valid value of this plain C struct and union.
        let mut attribute: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
        attribute.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attribute.value.clusterDim =
            sys::CUlaunchAttributeValue_union__bindgen_ty_1 { x: cluster.0, y: cluster.1, z: cluster.2 };
        let mut param = params as *const T as *mut c_void;
        // SAFETY: the one parameter points at `params`, alive for the call; the rest is
        // forwarded to the caller.
        unsafe { launch_ex(self, stream, config, Some(attribute), &mut param) }?;
        self.count_parameters(1);
        Ok(())
    }
}

fn launch_error(kernel: &'static str, error: DriverError) -> GpuError {
    GpuError::Driver { call: kernel, reason: format!("launch failed: {error}") }
}

/// A [`Module`] loaded into one CUDA context.
#[derive(Debug)]
pub struct LoadedModule {
    name: &'static str,
    module: Arc<CudaModule>,
    /// Programmatic launches are on (the device's tuning) and the device has them (sm_90 and
    /// above).
    programmatic: bool,
}

impl LoadedModule {
    /// Loads `module`'s fatbin into `context`; its kernels listed by [`waits_for_inputs`]
    /// launch programmatically where `programmatic_launches` (the device's
    /// [`GpuTuning::programmatic_launches`](crate::GpuTuning::programmatic_launches)) and the
    /// device has such launches (sm_90 and above). Errors: [`GpuError::KernelLoad`] when the
    /// device cannot run it (an architecture below sm_80 or a driver older than CUDA 13.0).
    pub fn load(context: &Arc<CudaContext>, module: Module, programmatic_launches: bool) -> Result<Self> {
        let loaded = context.load_module(Ptx::from_binary(module.fatbin().to_vec())).map_err(|e| {
            GpuError::KernelLoad { module: module.name().to_string(), function: "*".to_string(), reason: e.to_string() }
        })?;
        let major = context
            .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
            .unwrap_or(0);
        Ok(Self { name: module.name(), module: loaded, programmatic: programmatic_launches && major >= 9 })
    }

    /// The module name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The kernel `name` of this module. Errors: [`GpuError::KernelLoad`] naming it when the
    /// module has no such `extern "C"` kernel.
    pub fn kernel(&self, name: &'static str) -> Result<Kernel> {
        let function = self.module.load_function(name).map_err(|e| GpuError::KernelLoad {
            module: self.name.to_string(),
            function: name.to_string(),
            reason: e.to_string(),
        })?;
        let programmatic = self.programmatic && waits_for_inputs(self.name, name);
        Ok(Kernel { name, function, counted: Arc::new(AtomicBool::new(false)), programmatic })
    }
}

/// The kernels of one module that a crate launches, looked up once per device. Written with
/// [`kernel_set!`](crate::kernel_set); held by the device ([`GpuDevice::kernel_set`](crate::GpuDevice::kernel_set)).
pub trait KernelSet: Sized + Send + Sync + 'static {
    /// The module the kernels belong to.
    const MODULE: Module;

    /// Looks up every kernel in `module` (loaded from [`Self::MODULE`]).
    fn from_module(module: &LoadedModule) -> Result<Self>;

    /// Loads [`Self::MODULE`] into `context` (see [`LoadedModule::load`] for
    /// `programmatic_launches`) and looks up every kernel.
    fn load(context: &Arc<CudaContext>, programmatic_launches: bool) -> Result<Self> {
        Self::from_module(&LoadedModule::load(context, Self::MODULE, programmatic_launches)?)
    }
}

/// A [`KernelSet`](crate::kernel::KernelSet): a struct with one public
/// [`Kernel`](crate::kernel::Kernel) field per listed kernel, each named as the `extern "C"`
/// kernel it holds.
///
/// ```ignore
/// poly_cuda::kernel_set! {
///     /// The kernels of `kernels/plaintext.cu`.
///     struct PlaintextKernels(poly_cuda::hegpu_kernels::PLAINTEXT) { plaintext_scale, plaintext_lift }
/// }
/// let kernels = device.kernel_set::<PlaintextKernels>()?;
/// let mut launch = kernels.plaintext_scale.builder(device.stream());
/// ```
#[macro_export]
macro_rules! kernel_set {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident($module:expr) { $($kernel:ident),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Debug)]
        $vis struct $name {
            $(
                #[doc = concat!("`", stringify!($kernel), "`")]
                pub $kernel: $crate::kernel::Kernel,
            )+
        }

        impl $crate::kernel::KernelSet for $name {
            const MODULE: $crate::hegpu_kernels::Module = $module;

            fn from_module(module: &$crate::kernel::LoadedModule) -> $crate::Result<Self> {
                Ok(Self { $($kernel: module.kernel(stringify!($kernel))?,)+ })
            }
        }
    };
}

/// The device address of `buffer` on `stream`, as a kernel takes it inside a parameter struct
/// or more than once (cudarc wants a distinct borrow per buffer argument).
///
/// cudarc's event guard is dropped at once: [`GpuDevice`](crate::GpuDevice) turns event
/// tracking off (all work runs on its one in-order stream), so the guard records nothing.
pub fn address<T, B: DevicePtr<T>>(buffer: &B, stream: &CudaStream) -> u64 {
    buffer.device_ptr(stream).0
}

/// [`address`] of a buffer the kernel writes.
pub fn address_mut<T, B: DevicePtrMut<T>>(buffer: &mut B, stream: &CudaStream) -> u64 {
    buffer.device_ptr_mut(stream).0
}

/// The grid of a one-dimensional launch over `items` threads in blocks of [`THREADS`]: at
/// least one block, at most `max_blocks` (grid-stride kernels loop over the rest).
pub fn linear_config(items: usize, max_blocks: usize) -> LaunchConfig {
    let blocks = items.div_ceil(THREADS as usize).clamp(1, max_blocks.max(1));
    LaunchConfig {
        grid_dim: (u32::try_from(blocks).unwrap_or(u32::MAX), 1, 1),
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// The modules this crate launches, loaded when a device opens.
#[derive(Debug)]
pub(crate) struct PolyKernels {
    pub(crate) ntt: crate::ntt::NttKernels,
    pub(crate) dgt: crate::dgt::DgtKernels,
    pub(crate) elementwise: crate::elementwise::ElementwiseKernels,
    pub(crate) sampling: crate::sampling::SamplingKernels,
}

impl PolyKernels {
    pub(crate) fn load(context: &Arc<CudaContext>, tuning: &crate::GpuTuning) -> Result<Self> {
        let programmatic = tuning.programmatic_launches;
        Ok(Self {
            ntt: crate::ntt::NttKernels::load(context, tuning)?,
            dgt: crate::dgt::DgtKernels::load(context, programmatic)?,
            elementwise: crate::elementwise::ElementwiseKernels::load(context, programmatic)?,
            sampling: crate::sampling::SamplingKernels::load(context, programmatic)?,
        })
    }
}

kernel_set! {
    /// The test kernels of `kernels/modarith_test.cu` (`tests/modarith.rs`,
    /// `tests/centered_lift.rs`), loaded on first use.
    pub struct ModarithTestKernels(hegpu_kernels::MODARITH_TEST) { modarith_test, centered_lift_finish_test }
}

kernel_set! {
    /// The busy-wait kernel of `kernels/timing.cu` that GPU benchmarks queue their timed calls
    /// behind, loaded on first use.
    pub struct TimingKernels(hegpu_kernels::TIMING) { spin_wait }
}

#[cfg(test)]
mod tests {
    use super::waits_for_inputs;

    /// The list names the kernels of the key-switching and decryption chains, and leaves out
    /// the stand-alone element-wise sums and the modules whose kernels do not wait.
    #[test]
    fn programmatic_kernels_are_the_listed_ones() {
        for (module, name) in [
            ("ntt", "ntt_fwd_ip_split_contiguous_7_lr3"),
            ("ntt", "ntt_inv_strided_8_lr4"),
            ("rns", "rns_exact_convert_digits"),
            ("elementwise", "ew_tensor"),
            ("elementwise", "ew_automorphism_eval"),
            ("elementwise", "ew_mul_add"),
            ("bgv", "bgv_reduce_phase"),
        ] {
            assert!(waits_for_inputs(module, name), "{module}::{name}");
        }
        for (module, name) in [
            ("elementwise", "ew_add"),
            ("elementwise", "ew_add_sub_many"),
            ("elementwise", "ew_copy_many"),
            ("elementwise", "ew_neg"),
            ("sampling", "sample_uniform_kernel"),
            ("timing", "spin_wait"),
            ("ntt", "ew_tensor"),
        ] {
            assert!(!waits_for_inputs(module, name), "{module}::{name}");
        }
    }
}
