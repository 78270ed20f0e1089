//! The device: a CUDA context, the one stream all work goes to, and the kernels loaded into it.

use std::any::{Any, TypeId};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use cudarc::driver::sys::{CUgraphInstantiate_flags, CUresult, CUstreamCaptureMode};
use cudarc::driver::{CudaContext, CudaGraph, CudaSlice, CudaStream, DeviceRepr, DriverError, PinnedHostSlice};

use crate::error::{GpuError, Result};
use crate::kernel::{KernelSet, PolyKernels};
use crate::tuning::GpuTuning;

/// Whether the CUDA driver library can be loaded on this machine. Checked before any
/// driver call, because the dynamically loaded bindings abort when the library is missing.
pub fn driver_available() -> bool {
    // SAFETY: only tries to open the driver library by its usual names.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// The number of CUDA devices: 0 when the driver reports none. Errors:
/// [`GpuError::DriverNotLoadable`] without a driver; [`GpuError::DeviceUnusable`] (with the
/// driver's message) when the driver is installed but fails to initialize for another reason
/// (a driver older than the embedded kernels need, a broken installation).
pub fn device_count() -> Result<usize> {
    Ok(initialize_driver(0)?.unwrap_or(0))
}

/// Whether a driver status means the machine has no CUDA device (so GPU work may be skipped)
/// rather than a device or driver that is there but broken (which must be an error).
fn means_no_device(code: CUresult) -> bool {
    code == CUresult::CUDA_ERROR_NO_DEVICE
}

/// Whether a driver status means that only the CUDA stub library is installed: no driver.
fn means_no_driver(code: CUresult) -> bool {
    code == CUresult::CUDA_ERROR_STUB_LIBRARY
}

/// `cuInit`, then the device count: `Ok(None)` when the driver reports no device, `Ok(Some(n))`
/// with `n >= 1`, or the error that says why the driver cannot be used (`ordinal` names the
/// device asked for, for the message).
fn initialize_driver(ordinal: usize) -> Result<Option<usize>> {
    if !driver_available() {
        return Err(GpuError::DriverNotLoadable);
    }
    let classify = |error: DriverError| {
        if means_no_driver(error.0) {
            GpuError::DriverNotLoadable
        } else {
            GpuError::DeviceUnusable { ordinal, reason: error.to_string() }
        }
    };
    match cudarc::driver::result::init() {
        Ok(()) => {}
        Err(error) if means_no_device(error.0) => return Ok(None),
        Err(error) => return Err(classify(error)),
    }
    let count = match cudarc::driver::result::device::get_count() {
        Ok(count) => usize::try_from(count).unwrap_or(0),
        Err(error) if means_no_device(error.0) => 0,
        Err(error) => return Err(classify(error)),
    };
    Ok((count > 0).then_some(count))
}

/// Kernel sets of other crates on one device, by type: each loaded once, on first use.
type KernelSets = Vec<(TypeId, Arc<dyn Any + Send + Sync>)>;

/// A small number naming the calling thread (1, 2, ...; never 0), for [`DeviceStreams`].
fn thread_token() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    thread_local! {
        static TOKEN: u64 = NEXT.fetch_add(1, Ordering::Relaxed);
    }
    TOKEN.with(|token| *token)
}

/// A device's two streams: the one all work is queued on, and a private one on which
/// [`GpuDevice::capture_graph`] records a CUDA graph. While a thread captures, that thread
/// (and only it) sees the capture stream as the device's stream, so work that other threads
/// queue meanwhile runs as usual and never lands in the graph.
#[derive(Debug)]
pub struct DeviceStreams {
    main: Arc<CudaStream>,
    capture: Arc<CudaStream>,
    /// The token of the capturing thread; 0 when none captures.
    capturing_thread: AtomicU64,
}

impl DeviceStreams {
    /// The stream the calling thread queues work on: the capture stream inside
    /// [`GpuDevice::capture_graph`]'s closure, the device's stream everywhere else.
    pub fn current(&self) -> &Arc<CudaStream> {
        let owner = self.capturing_thread.load(Ordering::Acquire);
        if owner != 0 && owner == thread_token() { &self.capture } else { &self.main }
    }

    /// The device's stream, whatever the calling thread captures.
    pub fn main(&self) -> &Arc<CudaStream> {
        &self.main
    }
}

/// One CUDA device with its context, its stream and its kernels.
///
/// All work of this crate is queued on [`GpuDevice::stream`], in order; downloads wait for
/// it. Cheap to share: hold it in an [`Arc`].
#[derive(Debug)]
pub struct GpuDevice {
    context: Arc<CudaContext>,
    streams: Arc<DeviceStreams>,
    /// Held while a thread captures a graph (one capture at a time per device).
    capture_gate: Mutex<()>,
    /// This crate's kernels, loaded when the device opens.
    kernels: PolyKernels,
    /// Other crates' kernels ([`GpuDevice::kernel_set`]).
    kernel_sets: Mutex<KernelSets>,
    name: String,
    /// Streaming multiprocessors (the driver's count; launch shapes that aim at one wave).
    multiprocessors: usize,
    /// Page-locked host memory that downloads of up to [`STAGING_MAX_WORDS`] words land in
    /// (allocated on first use, grown on demand, reused: page-locking costs far more than a copy).
    staging: Mutex<Option<Staging>>,
    /// The launch choices every launch on this device reads (fixed when it opens).
    tuning: GpuTuning,
}

/// The page-locked, device-mapped staging buffer and its device address (looked up once).
#[derive(Debug)]
struct Staging {
    host: PinnedHostSlice<u64>,
    device_address: u64,
}

/// Downloads of at most this many words go through the page-locked staging buffer; larger ones
/// are copied straight into fresh pageable memory (the buffer stays at most 16 MiB).
pub const STAGING_MAX_WORDS: usize = 1 << 21;
/// Smallest staging buffer (512 KiB: a plaintext of N = 2^16).
const STAGING_MIN_WORDS: usize = 1 << 16;

impl GpuDevice {
    /// Opens device `ordinal`: creates (retains) its primary context, a stream, and loads
    /// this crate's kernel modules (`ntt`, `dgt`, `elementwise`, `sampling`). Errors: [`GpuError::DriverNotLoadable`] without a driver,
    /// [`GpuError::NoDevice`] when the driver reports no device at all,
    /// [`GpuError::NoSuchDevice`] when there are devices but not this ordinal,
    /// [`GpuError::DeviceUnusable`] with the driver's message for every other failure to
    /// initialize the driver or create the context (driver too old, device busy or in an
    /// exclusive mode, out of memory), [`GpuError::KernelLoad`] when the device cannot run the
    /// embedded kernels (an architecture below sm_80 or a driver older than CUDA 13.0).
    /// Launches take the default [`GpuTuning`] (the measured best).
    pub fn new(ordinal: usize) -> Result<Arc<Self>> {
        Self::with_tuning(ordinal, GpuTuning::default())
    }

    /// [`new`](Self::new) with `tuning` in place of the defaults: every launch on this device
    /// takes its choices (the results are the same, bit for bit; only shapes and launches
    /// differ). Several devices of one ordinal may be open at once, each with its own tuning.
    pub fn with_tuning(ordinal: usize, tuning: GpuTuning) -> Result<Arc<Self>> {
        let Some(count) = initialize_driver(ordinal)? else {
            return Err(GpuError::NoDevice { reason: "the CUDA driver reports no device".to_string() });
        };
        if ordinal >= count {
            return Err(GpuError::NoSuchDevice { ordinal, count });
        }
        let context =
            CudaContext::new(ordinal).map_err(|e| GpuError::DeviceUnusable { ordinal, reason: e.to_string() })?;
        // One in-order stream carries all work, so cudarc's per-buffer event tracking would
        // only add two event records per kernel argument. Turned off before any allocation.
        // SAFETY: nothing has been allocated or launched in this context by us yet, and every
        // operation of this crate runs on the single stream below.
        unsafe { context.disable_event_tracking() };
        let stream = context.new_stream().map_err(|e| GpuError::driver("cuStreamCreate", e))?;
        let capture = context.new_stream().map_err(|e| GpuError::driver("cuStreamCreate", e))?;
        keep_pool_memory(&context)?;
        let name = context.name().unwrap_or_else(|_| "unknown CUDA device".to_string());
        let multiprocessors = context
            .attribute(cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(|e| GpuError::driver("cuDeviceGetAttribute", e))?
            .max(1) as usize;
        let kernels = PolyKernels::load(&context, &tuning)?;
        Ok(Arc::new(Self {
            context,
            streams: Arc::new(DeviceStreams { main: stream, capture, capturing_thread: AtomicU64::new(0) }),
            capture_gate: Mutex::new(()),
            kernels,
            kernel_sets: Mutex::new(Vec::new()),
            name,
            multiprocessors,
            staging: Mutex::new(None),
            tuning,
        }))
    }

    /// Returns the device memory that freed buffers left in the stream-ordered pool to the
    /// driver, keeping at most `keep_bytes` (see [`GpuDevice::new`]: the pool keeps what it
    /// has until this is called). Waits for queued work first.
    pub fn trim_memory_pool(&self, keep_bytes: usize) -> Result<()> {
        self.synchronize()?;
        if !self.context.has_async_alloc() {
            return Ok(());
        }
        // SAFETY: the device handle is that of this live context; the pool is its default pool.
        let pool = unsafe { cudarc::driver::result::device::get_default_mem_pool(self.context.cu_device()) }
            .map_err(|e| GpuError::driver("cuDeviceGetDefaultMemPool", e))?;
        // SAFETY: a valid pool; trimming only releases memory no allocation holds.
        unsafe { cudarc::driver::result::mem_pool::trim_to(pool, keep_bytes) }
            .map_err(|e| GpuError::driver("cuMemPoolTrimTo", e))
    }

    /// The device's name as the driver reports it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The device's streaming multiprocessors (132 on an H100 SXM).
    pub fn multiprocessors(&self) -> usize {
        self.multiprocessors
    }

    /// Whether this device's transform, RNS, BGV-decryption and most element-wise kernels
    /// launch with a programmatic dependency on the kernel before them (outside graph capture;
    /// the list: [`crate::kernel::waits_for_inputs`]): sm_90 and above, unless the device's
    /// [`GpuTuning::programmatic_launches`] is off. Each such
    /// kernel may start while its predecessor finishes and waits for it before touching memory
    /// (`dependent_launch.cuh`).
    pub fn programmatic_launches(&self) -> bool {
        self.kernels().elementwise.ew_tensor.is_programmatic()
    }

    /// The launch choices of this device ([`with_tuning`](Self::with_tuning)).
    pub fn tuning(&self) -> &GpuTuning {
        &self.tuning
    }

    /// The cudarc context.
    pub fn cuda_context(&self) -> &Arc<CudaContext> {
        &self.context
    }

    /// The stream all work of this crate is queued on (inside
    /// [`capture_graph`](Self::capture_graph)'s closure, the capture stream).
    pub fn stream(&self) -> &Arc<CudaStream> {
        self.streams.current()
    }

    /// The device's streams, for types that launch on the device without holding it.
    pub fn streams(&self) -> &Arc<DeviceStreams> {
        &self.streams
    }

    /// Records the work `body` queues on the device as a CUDA graph, without running it:
    /// inside `body`, the calling thread's [`stream`](Self::stream) is a private capture
    /// stream (other threads keep queueing on the device's stream, outside the graph). Every
    /// buffer `body` allocates must be freed inside it (the graph then owns that memory);
    /// buffers from before the capture are used by address, so they must outlive every
    /// launch of the graph. A call that waits for the device inside `body` fails (capture
    /// forbids it). Returns `body`'s value and the graph, launched with
    /// [`launch_graph`](Self::launch_graph); errors with `body`'s error or the driver's.
    pub fn capture_graph<T, E: From<GpuError>>(
        &self,
        body: impl FnOnce() -> std::result::Result<T, E>,
    ) -> std::result::Result<(T, CudaGraph), E> {
        let _gate = self.capture_gate.lock().unwrap_or_else(PoisonError::into_inner);
        let capture = &self.streams.capture;
        capture
            .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
            .map_err(|e| GpuError::driver("cuStreamBeginCapture", e))?;
        self.streams.capturing_thread.store(thread_token(), Ordering::Release);
        let value = body();
        self.streams.capturing_thread.store(0, Ordering::Release);
        let ended = capture.end_capture(CUgraphInstantiate_flags(0));
        let value = value?;
        let graph = ended
            .map_err(|e| GpuError::driver("cuStreamEndCapture", e))?
            .ok_or_else(|| GpuError::Driver { call: "cuStreamEndCapture", reason: "no graph captured".to_string() })?;
        Ok((value, graph))
    }

    /// Queues `graph` (from [`capture_graph`](Self::capture_graph) on this device) on the
    /// device's stream.
    pub fn launch_graph(&self, graph: &CudaGraph) -> Result<()> {
        self.context.bind_to_thread().map_err(|e| GpuError::driver("cuCtxSetCurrent", e))?;
        // SAFETY: `graph` is a live executable graph of this context (it owns the exec handle
        // for as long as the borrow lasts) and the stream is this device's.
        unsafe { cudarc::driver::result::graph::launch(graph.cu_graph_exec(), self.streams.main.cu_stream()) }
            .map_err(|e| GpuError::driver("cuGraphLaunch", e))?;
        crate::launch_trace::record("graph");
        Ok(())
    }

    /// Queues the executable graph `exec` (instantiated from a graph recorded on this device)
    /// on the device's stream.
    ///
    /// # Safety
    /// `exec` must be a live executable graph of this device's context.
    pub(crate) unsafe fn launch_graph_exec(&self, exec: cudarc::driver::sys::CUgraphExec) -> Result<()> {
        self.context.bind_to_thread().map_err(|e| GpuError::driver("cuCtxSetCurrent", e))?;
        // SAFETY: forwarded to the caller; the stream is this device's.
        unsafe { cudarc::driver::result::graph::launch(exec, self.streams.main.cu_stream()) }
            .map_err(|e| GpuError::driver("cuGraphLaunch", e))?;
        crate::launch_trace::record("graph");
        Ok(())
    }

    /// This crate's kernels.
    pub(crate) fn kernels(&self) -> &PolyKernels {
        &self.kernels
    }

    /// The kernel set `K` of this device: its module loaded and its kernels looked up on the
    /// first call, then shared. For crates that launch kernels of their own modules: they call
    /// this once per device or per context of theirs and keep the handles, not once per launch
    /// (each call takes a lock). Errors: [`GpuError::KernelLoad`] when the module cannot be
    /// loaded or lacks a kernel of `K` (then nothing is kept, and the next call tries again).
    pub fn kernel_set<K: KernelSet>(&self) -> Result<Arc<K>> {
        let mut sets = self.kernel_sets.lock().unwrap_or_else(PoisonError::into_inner);
        let id = TypeId::of::<K>();
        if let Some((_, set)) = sets.iter().find(|(set_id, _)| *set_id == id)
            && let Ok(set) = Arc::clone(set).downcast::<K>()
        {
            return Ok(set);
        }
        let set = Arc::new(K::load(&self.context, self.tuning.programmatic_launches)?);
        sets.push((id, Arc::clone(&set) as Arc<dyn Any + Send + Sync>));
        Ok(set)
    }

    /// Waits for all queued work.
    pub fn synchronize(&self) -> Result<()> {
        self.stream().synchronize().map_err(|e| GpuError::driver("cuStreamSynchronize", e))
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
        unsafe { self.stream().alloc::<T>(len) }.map_err(|e| GpuError::alloc(bytes, e))
    }

    /// A device copy of `host`.
    pub(crate) fn upload<T: DeviceRepr>(&self, host: &[T]) -> Result<CudaSlice<T>> {
        // SAFETY: the copy below writes every element.
        let mut buffer = unsafe { self.alloc::<T>(host.len()) }?;
        self.stream().memcpy_htod(host, &mut buffer).map_err(|e| GpuError::driver("cuMemcpyHtoDAsync", e))?;
        Ok(buffer)
    }

    /// The values of `buffer`, after all queued work has finished.
    pub(crate) fn download<T: DeviceRepr + Default + Clone>(&self, buffer: &CudaSlice<T>) -> Result<Vec<T>> {
        let mut host = vec![T::default(); buffer.len()];
        self.stream().memcpy_dtoh(buffer, &mut host).map_err(|e| GpuError::driver("cuMemcpyDtoHAsync", e))?;
        self.synchronize()?;
        Ok(host)
    }

    /// The staging buffer, grown to at least `len` words (at most [`STAGING_MAX_WORDS`]).
    fn staging_at_least<'a>(&self, staging: &'a mut Option<Staging>, len: usize) -> Result<&'a mut Staging> {
        if staging.as_ref().is_none_or(|current| current.host.len() < len) {
            let words = len.next_power_of_two().max(STAGING_MIN_WORDS);
            // Page-locked and mapped into the device's address space (kernels may write it
            // directly, see `collect_words`), not write-combined (cudarc's `alloc_pinned`
            // default): the host reads it back, which write-combined memory makes slow.
            // SAFETY: callers read only words that a copy or a kernel wrote first.
            let mut host = unsafe {
                self.context.alloc_pinned_with_flags::<u64>(words, cudarc::driver::sys::CU_MEMHOSTALLOC_DEVICEMAP)
            }
            .map_err(|e| GpuError::alloc(words * size_of::<u64>(), e))?;
            let pointer = host.as_mut_ptr().map_err(|e| GpuError::driver("cuEventSynchronize", e))?;
            let mut device_address: cudarc::driver::sys::CUdeviceptr = 0;
            // SAFETY: `pointer` is the start of a live cuMemHostAlloc allocation with
            // CU_MEMHOSTALLOC_DEVICEMAP in this context (the flags argument must be 0).
            unsafe { cudarc::driver::sys::cuMemHostGetDevicePointer_v2(&raw mut device_address, pointer.cast(), 0) }
                .result()
                .map_err(|e| GpuError::driver("cuMemHostGetDevicePointer", e))?;
            *staging = Some(Staging { host, device_address });
        }
        staging.as_mut().ok_or_else(|| GpuError::Unsupported { what: "an empty staging buffer".to_string() })
    }

    /// The words of `buffer`, after all queued work has finished: copied into the device's
    /// page-locked staging buffer (a DMA at full bus speed), then into a fresh vector. Buffers of
    /// more than [`STAGING_MAX_WORDS`] words take [`download_words_pageable`](Self::download_words_pageable).
    pub fn download_words(&self, buffer: &CudaSlice<u64>) -> Result<Vec<u64>> {
        let len = buffer.len();
        if len > STAGING_MAX_WORDS {
            return self.download_words_pageable(buffer);
        }
        let mut guard = self.staging.lock().unwrap_or_else(PoisonError::into_inner);
        let staging = self.staging_at_least(&mut guard, len)?;
        // The copy's byte count is the destination's length: hand it exactly `len` words.
        // (Waits for the staging buffer's last copy, long finished: each download synchronizes.)
        let host = staging.host.as_mut_slice().map_err(|e| GpuError::driver("cuEventSynchronize", e))?;
        let Some(target) = host.get_mut(..len) else {
            // Unreachable: the buffer was grown to at least `len` words above.
            return Err(GpuError::Unsupported { what: format!("a staged download of {len} words") });
        };
        self.stream().memcpy_dtoh(buffer, target).map_err(|e| GpuError::driver("cuMemcpyDtoHAsync", e))?;
        self.synchronize()?;
        Ok(target.to_vec())
    }

    /// `len` words that kernels write straight into host memory: `fill` gets the device address
    /// of `len` words of the page-locked, device-mapped staging buffer and queues kernels that
    /// write all of them; then the stream is synchronized and the words returned. Saves the
    /// separate copy (and its latency) of a device buffer followed by
    /// [`download_words`](Self::download_words). At most [`STAGING_MAX_WORDS`] words
    /// ([`GpuError::Unsupported`] beyond). Errors of `fill` are returned as they are (after
    /// waiting for whatever it queued).
    pub fn collect_words<E: From<GpuError>>(
        &self,
        len: usize,
        fill: impl FnOnce(u64) -> core::result::Result<(), E>,
    ) -> core::result::Result<Vec<u64>, E> {
        if len > STAGING_MAX_WORDS {
            return Err(GpuError::Unsupported { what: format!("collecting {len} words in host memory") }.into());
        }
        let mut guard = self.staging.lock().unwrap_or_else(PoisonError::into_inner);
        let staging = self.staging_at_least(&mut guard, len)?;
        let address = staging.device_address;
        let filled = fill(address);
        // Wait even when `fill` failed part-way: nothing may still write the buffer afterwards.
        self.synchronize()?;
        filled?;
        let words = staging.host.as_slice().map_err(|e| GpuError::driver("cuEventSynchronize", e))?;
        words.get(..len).map(<[u64]>::to_vec).ok_or_else(|| {
            // Unreachable: the buffer was grown to at least `len` words above.
            GpuError::Unsupported { what: format!("collecting {len} words in host memory") }.into()
        })
    }

    /// The words of `buffer` copied straight into fresh pageable memory (the driver stages the
    /// copy itself), after all queued work has finished: the path of large downloads, public so
    /// that benchmarks can compare it with [`download_words`](Self::download_words).
    pub fn download_words_pageable(&self, buffer: &CudaSlice<u64>) -> Result<Vec<u64>> {
        self.download(buffer)
    }

    /// A fresh device copy of `buffer` (queued).
    pub(crate) fn duplicate<T: DeviceRepr>(&self, buffer: &CudaSlice<T>) -> Result<CudaSlice<T>> {
        // SAFETY: the copy below writes every element.
        let mut copy = unsafe { self.alloc::<T>(buffer.len()) }?;
        self.stream().memcpy_dtod(buffer, &mut copy).map_err(|e| GpuError::driver("cuMemcpyDtoDAsync", e))?;
        Ok(copy)
    }
}

/// Sets the release threshold of the device's default memory pool (the one cudarc's
/// stream-ordered allocations use) to "never": with the default of 0 the driver returns every
/// freed block to the system at each synchronization, and the next allocation maps it again,
/// which costs more than the small kernels of a BFV operation. Freed memory now stays in the
/// pool for reuse; [`GpuDevice::trim_memory_pool`] gives it back on request.
fn keep_pool_memory(context: &Arc<CudaContext>) -> Result<()> {
    if !context.has_async_alloc() {
        return Ok(());
    }
    // SAFETY: the device handle is that of the context just created.
    let pool = unsafe { cudarc::driver::result::device::get_default_mem_pool(context.cu_device()) }
        .map_err(|e| GpuError::driver("cuDeviceGetDefaultMemPool", e))?;
    let mut threshold = u64::MAX;
    // SAFETY: a valid pool; CU_MEMPOOL_ATTR_RELEASE_THRESHOLD takes a cuuint64_t, which
    // `threshold` is.
    unsafe {
        cudarc::driver::result::mem_pool::set_attribute(
            pool,
            cudarc::driver::sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
            (&raw mut threshold).cast(),
        )
    }
    .map_err(|e| GpuError::driver("cuMemPoolSetAttribute", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only "no device" and "only the stub library" let GPU work be skipped; the failures of a
    /// machine that has a GPU are errors.
    #[test]
    fn only_a_missing_device_or_driver_counts_as_absent() {
        assert!(means_no_device(CUresult::CUDA_ERROR_NO_DEVICE));
        assert!(means_no_driver(CUresult::CUDA_ERROR_STUB_LIBRARY));
        for broken in [
            CUresult::CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE,
            CUresult::CUDA_ERROR_DEVICE_UNAVAILABLE,
            CUresult::CUDA_ERROR_OUT_OF_MEMORY,
            CUresult::CUDA_ERROR_NOT_INITIALIZED,
            CUresult::CUDA_ERROR_INVALID_DEVICE,
            CUresult::CUDA_ERROR_SYSTEM_DRIVER_MISMATCH,
            CUresult::CUDA_ERROR_UNKNOWN,
        ] {
            assert!(!means_no_device(broken) && !means_no_driver(broken), "{broken:?}");
        }
    }
}
