//! Replaying fixed launch sequences as CUDA graphs.
//!
//! At small `N` a kernel runs for a few microseconds and the host needs about as long to
//! launch it, so an operation of a dozen kernels is bound by the host's issue rate
//! (`bgv_bench --host`, `gpu_host_costs`: about 3.5 us a launch on the H100 machine, 1.8 us for
//! a whole graph of eleven). A [`GraphCache`] records an operation's launches once per
//! signature (shapes and the addresses of long-lived operands such as keys) with
//! [`GpuDevice::capture_graph`], on staging buffers it owns; each call then copies its inputs
//! into the staging buffers (one launch), launches the graph, and copies the outputs into fresh
//! buffers (one launch). The values are those of the direct launches: the graph holds the same
//! kernels with the same arguments.
//!
//! A [`RelocatableGraph`] needs no copies: it is recorded on template buffers and re-pointed at
//! each call's own buffers before its launch (kernel parameters updated in the executable
//! graph); [`RelocatableGraph::record_programmatic`] also lets each kernel's launch overlap the
//! one before it (BGV's decryption, `bgv-encrypt/src/decryption_replay.rs`).
//!
//! Stream contract: everything is queued on the device's stream, in order; the cache's lock is
//! held while a call queues its copies and its graph, so calls from several threads never
//! share staging buffers out of order. Whether and up to which degree operations are replayed is
//! the device's [`GraphTuning`](crate::GraphTuning) (default: on, up to [`DEFAULT_MAX_DEGREE`]
//! or an operation's own bound, [`replay_enabled_up_to`]).

use std::sync::{Mutex, PoisonError};

use cudarc::driver::{CudaGraph, CudaSlice};

use crate::GpuDevice;
use crate::error::{GpuError, Result};

/// Above this degree the kernels outlast their launches and replay saves little (the
/// copies in and out cost bandwidth instead).
pub const DEFAULT_MAX_DEGREE: usize = 1 << 13;
/// Signatures a cache keeps (the oldest is dropped first).
const MAX_ENTRIES: usize = 8;

/// Whether operations over rings of degree `degree` on `device` are replayed (its
/// [`GraphTuning`](crate::GraphTuning)), with [`DEFAULT_MAX_DEGREE`] as the bound where the
/// tuning does not set one.
pub fn replay_enabled(device: &GpuDevice, degree: usize) -> bool {
    replay_enabled_up_to(device, degree, DEFAULT_MAX_DEGREE)
}

/// [`replay_enabled`] for an operation whose own default bound is `default_max_degree` (an
/// operation that measured faster replayed at larger degrees); the tuning's
/// [`max_degree`](crate::GraphTuning::max_degree), where set, is every operation's bound.
pub fn replay_enabled_up_to(device: &GpuDevice, degree: usize, default_max_degree: usize) -> bool {
    let graphs = &device.tuning().graphs;
    graphs.replay && degree <= graphs.max_degree.unwrap_or(default_max_degree)
}

/// `dst[k] <- src[k]` for every pair, up to four buffers per launch, on `device`'s stream.
/// Errors with [`GpuError::LengthMismatch`] unless each pair has equal, even lengths (nothing
/// is queued then).
pub fn copy_buffers(device: &GpuDevice, pairs: &mut [(&CudaSlice<u64>, &mut CudaSlice<u64>)]) -> Result<()> {
    crate::elementwise::copy_many(device, pairs)
}

/// One recorded operation: its staging inputs `S`, its staging outputs and the graph that
/// reads the one and writes the other.
struct Recorded<S> {
    staging: S,
    outputs: Vec<CudaSlice<u64>>,
    graph: SendGraph,
}

/// A graph that may move to another thread.
struct SendGraph(CudaGraph);

// SAFETY: the driver's graph handles may be used from any thread, one thread at a time (CUDA
// programming guide, graph thread safety). A `SendGraph` lives in a `GraphCache`, whose mutex
// is held for every launch, and is destroyed by whichever thread drops the cache, when no
// launch can be in progress on the host.
unsafe impl Send for SendGraph {}

/// A cache entry; `None` when recording failed (that signature runs directly from then on).
type Entry<S> = (Vec<u64>, Option<Recorded<S>>);

/// Recorded operations by signature, at most eight (see the module documentation).
pub struct GraphCache<S> {
    entries: Mutex<Vec<Entry<S>>>,
}

impl<S> std::fmt::Debug for GraphCache<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let count = self.entries.lock().map_or(0, |entries| entries.len());
        f.debug_struct("GraphCache").field("entries", &count).finish()
    }
}

impl<S> Default for GraphCache<S> {
    fn default() -> Self {
        Self { entries: Mutex::new(Vec::new()) }
    }
}

/// An operation's output buffers, or its error.
pub type Outputs<E> = std::result::Result<Vec<CudaSlice<u64>>, E>;

/// What [`GraphCache::run`] needs to record and replay one operation.
pub struct Replay<'a, S, E> {
    /// The signature: everything the recorded launches depend on besides the staging
    /// buffers' values (shapes, and the addresses of operands read in place, such as keys).
    pub signature: Vec<u64>,
    /// Allocates the staging inputs (on the device's stream; called once per signature).
    pub make_staging: &'a dyn Fn() -> std::result::Result<S, E>,
    /// Queues the copies of this call's inputs into the staging inputs.
    pub load: &'a dyn Fn(&mut S) -> std::result::Result<(), E>,
    /// The operation on the staging inputs: its output buffers (recorded once per signature;
    /// must not wait for the device).
    pub body: &'a dyn Fn(&S) -> Outputs<E>,
    /// The operation on this call's own inputs, launched directly (used where recording
    /// fails).
    pub direct: &'a dyn Fn() -> Outputs<E>,
}

impl<S, E> std::fmt::Debug for Replay<'_, S, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replay").field("signature", &self.signature).finish_non_exhaustive()
    }
}

impl<S> GraphCache<S> {
    /// Runs the operation described by `replay` on `device`: by its recorded graph when its
    /// signature has one (recording it first if not), directly when recording failed. Returns
    /// the output buffers, fresh (owned by the caller). Errors as the operation does, or with
    /// the driver's error of a copy or launch.
    pub fn run<E: From<GpuError>>(
        &self,
        device: &GpuDevice,
        replay: &Replay<'_, S, E>,
    ) -> std::result::Result<Vec<CudaSlice<u64>>, E> {
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let index = match entries.iter().position(|(signature, _)| *signature == replay.signature) {
            Some(index) => index,
            None => {
                let recorded = Self::record(device, replay).ok();
                if entries.len() >= MAX_ENTRIES {
                    entries.remove(0);
                }
                entries.push((replay.signature.clone(), recorded));
                entries.len() - 1
            }
        };
        let Some(recorded) = entries[index].1.as_mut() else {
            drop(entries);
            return (replay.direct)();
        };
        (replay.load)(&mut recorded.staging)?;
        device.launch_graph(&recorded.graph.0)?;
        let stream = device.stream();
        let mut outputs = Vec::with_capacity(recorded.outputs.len());
        for staged in &recorded.outputs {
            // SAFETY: written completely by the copy below before anything reads it.
            let fresh = unsafe { stream.alloc::<u64>(staged.len()) }
                .map_err(|e| GpuError::alloc(staged.len() * size_of::<u64>(), e))?;
            outputs.push(fresh);
        }
        let mut pairs: Vec<(&CudaSlice<u64>, &mut CudaSlice<u64>)> =
            recorded.outputs.iter().zip(outputs.iter_mut()).collect();
        copy_buffers(device, &mut pairs)?;
        Ok(outputs)
    }

    /// Allocates the staging buffers and records the operation on them.
    fn record<E: From<GpuError>>(device: &GpuDevice, replay: &Replay<'_, S, E>) -> std::result::Result<Recorded<S>, E> {
        let staging = (replay.make_staging)()?;
        // One run outside the recording gives the output sizes (and checks the operation).
        let sizes: Vec<usize> = (replay.body)(&staging)?.iter().map(CudaSlice::len).collect();
        let stream = device.stream();
        let mut outputs = Vec::with_capacity(sizes.len());
        for &len in &sizes {
            // SAFETY: written by every launch of the graph before the copies out read it.
            outputs.push(unsafe { stream.alloc::<u64>(len) }.map_err(|e| GpuError::alloc(len * size_of::<u64>(), e))?);
        }
        let ((), graph) = device.capture_graph::<(), E>(|| {
            let produced = (replay.body)(&staging)?;
            if produced.len() != outputs.len() {
                return Err(GpuError::LengthMismatch { expected: outputs.len(), actual: produced.len() }.into());
            }
            let mut pairs: Vec<(&CudaSlice<u64>, &mut CudaSlice<u64>)> =
                produced.iter().zip(outputs.iter_mut()).collect();
            copy_buffers(device, &mut pairs)?;
            // `produced` is freed here, inside the recording: the graph owns that memory.
            Ok(())
        })?;
        Ok(Recorded { staging, outputs, graph: SendGraph(graph) })
    }
}

/// A device buffer that a [`RelocatableGraph`]'s launches take by address: where it starts and
/// how many bytes it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferSpan {
    /// The device address of the first byte.
    pub address: u64,
    /// The length in bytes.
    pub bytes: usize,
}

impl BufferSpan {
    /// The span of `buffer`.
    pub fn of<T>(buffer: &CudaSlice<T>, device: &GpuDevice) -> Self {
        Self { address: crate::kernel::address(buffer, device.stream()), bytes: buffer.len() * size_of::<T>() }
    }
}

/// A word of a kernel node's parameters that holds an address inside template buffer
/// `buffer`, `delta` bytes past its start.
#[derive(Clone, Copy, Debug)]
struct AddressSite {
    at: usize,
    buffer: usize,
    delta: u64,
}

/// One kernel node of a [`RelocatableGraph`]: its launch as recorded, its parameter bytes (a
/// copy, laid out at the kernel's parameter offsets) and the words in them to re-point.
struct RelocatedNode {
    node: cudarc::driver::sys::CUgraphNode,
    launch: cudarc::driver::sys::CUDA_KERNEL_NODE_PARAMS_v2,
    /// The parameter words; while `in_exec`, exactly those the executable graph holds.
    values: Vec<u64>,
    offsets: Vec<usize>,
    sites: Vec<AddressSite>,
    /// Whether the executable graph holds `values` (false after a failed update).
    in_exec: bool,
}

/// A recorded sequence of kernel launches that reads and writes some buffers by address
/// ("templates"), replayed on other buffers of the same sizes: before each launch of the graph
/// the address words in its kernel parameters are re-pointed (`cuGraphExecKernelNodeSetParams`,
/// a host-side update that leaves launches already queued as they were; skipped for a kernel
/// whose addresses are those it already holds). No staging copies, so a replay costs the host
/// one graph launch and at most an update per kernel that takes a template, where direct
/// launches cost a launch per kernel (about 3.5 us each on the H100 machine).
///
/// Which words are addresses is found exactly, not guessed: the body is recorded twice, on two
/// disjoint sets of templates, and a parameter word that differs between the two recordings
/// must point at the same offset of the same template in both (anything else, such as a
/// buffer allocated inside the body, makes recording fail). Words equal in both stay as
/// recorded, so buffers the body uses besides the templates (scratch, tables, keys) must
/// outlive the graph.
pub struct RelocatableGraph {
    /// The graph instantiated again after its edges were made programmatic
    /// ([`RelocatableGraph::record_programmatic`]); launched in place of `graph`'s own.
    /// Declared first: dropped before the graph it was made from.
    programmatic: Option<ProgrammaticExec>,
    graph: SendGraph,
    nodes: Vec<RelocatedNode>,
    templates: Vec<usize>,
}

/// An executable graph this module instantiated (destroyed with it).
struct ProgrammaticExec(cudarc::driver::sys::CUgraphExec);

impl Drop for ProgrammaticExec {
    fn drop(&mut self) {
        // SAFETY: instantiated by `make_programmatic` and destroyed only here; no launch is
        // being queued (the owner is being dropped).
        let _ = unsafe { cudarc::driver::sys::cuGraphExecDestroy(self.0) };
    }
}

/// Rewrites every edge of `graph` (kernel nodes only, checked by the caller) as a programmatic
/// dependency and instantiates it.
fn make_programmatic(graph: &CudaGraph) -> Result<ProgrammaticExec> {
    use cudarc::driver::sys;
    let g = graph.cu_graph();
    let mut count = 0usize;
    // SAFETY: null arrays ask for the count only; the graph is live (borrowed).
    unsafe { sys::cuGraphGetEdges_v2(g, std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut(), &mut count) }
        .result()
        .map_err(|e| GpuError::driver("cuGraphGetEdges", e))?;
    let mut from = vec![std::ptr::null_mut(); count];
    let mut to = vec![std::ptr::null_mut(); count];
    // SAFETY: an all-zero value is a valid value of this plain C struct.
    let mut data: Vec<sys::CUgraphEdgeData> = vec![unsafe { std::mem::zeroed() }; count];
    // SAFETY: the arrays hold `count` entries each.
    unsafe { sys::cuGraphGetEdges_v2(g, from.as_mut_ptr(), to.as_mut_ptr(), data.as_mut_ptr(), &mut count) }
        .result()
        .map_err(|e| GpuError::driver("cuGraphGetEdges", e))?;
    for k in 0..count.min(from.len()) {
        // SAFETY: an all-zero value is a valid value of this plain C struct.
        let mut edge: sys::CUgraphEdgeData = unsafe { std::mem::zeroed() };
        edge.from_port = sys::CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC as u8;
        edge.type_ = sys::CUgraphDependencyType::CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC as u8;
        // SAFETY: the edge (from[k], to[k], data[k]) is one of the graph's; it is replaced by
        // the same edge of programmatic type between the same two kernel nodes.
        unsafe { sys::cuGraphRemoveDependencies_v2(g, &from[k], &to[k], &data[k], 1) }
            .result()
            .map_err(|e| GpuError::driver("cuGraphRemoveDependencies", e))?;
        // SAFETY: as above.
        unsafe { sys::cuGraphAddDependencies_v2(g, &from[k], &to[k], &edge, 1) }
            .result()
            .map_err(|e| GpuError::driver("cuGraphAddDependencies", e))?;
    }
    let mut exec = std::ptr::null_mut();
    // SAFETY: the graph is live; `exec` receives a new executable graph, owned by the result.
    unsafe { sys::cuGraphInstantiateWithFlags(&mut exec, g, 0) }
        .result()
        .map_err(|e| GpuError::driver("cuGraphInstantiate", e))?;
    Ok(ProgrammaticExec(exec))
}

impl std::fmt::Debug for RelocatableGraph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RelocatableGraph")
            .field("kernels", &self.nodes.len())
            .field("templates", &self.templates)
            .finish_non_exhaustive()
    }
}

// SAFETY: the node handles and the parameter copy are only used through `&mut self` (one thread
// at a time), and the driver's graph handles may be used from any thread one at a time
// (`SendGraph`).
unsafe impl Send for RelocatableGraph {}

fn unrelocatable(reason: String) -> GpuError {
    GpuError::Unsupported { what: format!("replaying this operation as a relocatable graph: {reason}") }
}

/// The kernel nodes of `graph` in recording order, with their launch parameters.
fn kernel_nodes(
    graph: &CudaGraph,
) -> Result<Vec<(cudarc::driver::sys::CUgraphNode, cudarc::driver::sys::CUDA_KERNEL_NODE_PARAMS_v2)>> {
    use cudarc::driver::sys;
    let mut count = 0usize;
    // SAFETY: a null node array asks for the count only; the graph is live (borrowed).
    unsafe { sys::cuGraphGetNodes(graph.cu_graph(), std::ptr::null_mut(), &mut count) }
        .result()
        .map_err(|e| GpuError::driver("cuGraphGetNodes", e))?;
    let mut nodes = vec![std::ptr::null_mut(); count];
    // SAFETY: `nodes` holds `count` handles.
    unsafe { sys::cuGraphGetNodes(graph.cu_graph(), nodes.as_mut_ptr(), &mut count) }
        .result()
        .map_err(|e| GpuError::driver("cuGraphGetNodes", e))?;
    nodes.truncate(count);
    let mut kernels = Vec::with_capacity(count);
    for node in nodes {
        let mut kind = sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_EMPTY;
        // SAFETY: `node` is a node of the live graph.
        unsafe { sys::cuGraphNodeGetType(node, &mut kind) }
            .result()
            .map_err(|e| GpuError::driver("cuGraphNodeGetType", e))?;
        if kind != sys::CUgraphNodeType::CU_GRAPH_NODE_TYPE_KERNEL {
            return Err(unrelocatable(format!("it records a {kind:?} node (only kernels are re-pointed)")));
        }
        // SAFETY: an all-zero value is a valid value of this plain C struct; the driver fills it.
        let mut launch: sys::CUDA_KERNEL_NODE_PARAMS_v2 = unsafe { std::mem::zeroed() };
        // SAFETY: `node` is a kernel node of the live graph.
        unsafe { sys::cuGraphKernelNodeGetParams_v2(node, &mut launch) }
            .result()
            .map_err(|e| GpuError::driver("cuGraphKernelNodeGetParams", e))?;
        kernels.push((node, launch));
    }
    Ok(kernels)
}

/// `(offset, size)` in bytes of each parameter of `function` (a kernel launched through
/// [`crate::kernel::Launch`], which counted its parameters).
fn parameter_layout(function: cudarc::driver::sys::CUfunction) -> Result<Vec<(usize, usize)>> {
    use cudarc::driver::sys;
    let count = crate::kernel::parameter_count(function)
        .ok_or_else(|| unrelocatable("a kernel was not launched through poly_cuda::kernel".to_string()))?;
    (0..count)
        .map(|index| {
            let (mut offset, mut size) = (0usize, 0usize);
            // SAFETY: `function` is a loaded kernel with `count` parameters.
            unsafe { sys::cuFuncGetParamInfo(function, index, &mut offset, &mut size) }
                .result()
                .map_err(|e| GpuError::driver("cuFuncGetParamInfo", e))?;
            Ok((offset, size))
        })
        .collect()
}

/// The parameter bytes of a recorded launch as 64-bit words (the kernel's parameter space,
/// zero-padded to a whole word), with each parameter's offset.
fn parameter_words(launch: &cudarc::driver::sys::CUDA_KERNEL_NODE_PARAMS_v2) -> Result<(Vec<u64>, Vec<usize>)> {
    if launch.kernelParams.is_null() || !launch.extra.is_null() {
        return Err(unrelocatable("a kernel's parameters are not given as an array".to_string()));
    }
    let layout = parameter_layout(launch.func)?;
    let end = layout.iter().map(|&(offset, size)| offset + size).max().unwrap_or(0);
    let mut values = vec![0u64; end.div_ceil(8)];
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut values);
    for (index, &(offset, size)) in layout.iter().enumerate() {
        // SAFETY: the node owns one value pointer per parameter, each to `size` bytes (the
        // kernel's own layout); they stay valid while the graph lives and is not changed.
        let source = unsafe { *launch.kernelParams.add(index) };
        if source.is_null() {
            return Err(unrelocatable("a kernel parameter has no value".to_string()));
        }
        // SAFETY: as above; `bytes` holds `offset + size` bytes.
        let value = unsafe { std::slice::from_raw_parts(source as *const u8, size) };
        bytes[offset..offset + size].copy_from_slice(value);
    }
    Ok((values, layout.iter().map(|&(offset, _)| offset).collect()))
}

impl RelocatableGraph {
    /// Records `body(k)` for `k = 0` on templates `first` and `k = 1` on templates `second`
    /// (the same count and sizes, disjoint), as [`GpuDevice::capture_graph`] does (nothing
    /// runs), and finds the address words to re-point. Errors with
    /// [`GpuError::Unsupported`] where the two recordings differ other than in template
    /// addresses (or record anything but kernels), with `body`'s errors, or the driver's.
    pub fn record<E: From<GpuError>>(
        device: &GpuDevice,
        first: &[BufferSpan],
        second: &[BufferSpan],
        body: impl FnMut(usize) -> std::result::Result<(), E>,
    ) -> std::result::Result<Self, E> {
        Self::record_with(device, first, second, false, body)
    }

    /// [`record`](Self::record) with every dependency between consecutive kernels made
    /// programmatic (programmatic dependent launch, sm_90): a kernel may be launched while the
    /// one before it runs, once all of that one's blocks have started, so their launch
    /// latencies overlap. Only for bodies whose every kernel waits for its predecessor before
    /// touching memory the predecessor uses (`dependent_launch::wait_for_inputs` in
    /// kernels/include/dependent_launch.cuh: the inverse transform's passes, the fused lift,
    /// `bgv_reduce_phase`); any other kernel could read data not yet written. Falls back to
    /// ordinary edges where the driver refuses them or the device's
    /// [`GraphTuning::programmatic`](crate::GraphTuning::programmatic) is off.
    pub fn record_programmatic<E: From<GpuError>>(
        device: &GpuDevice,
        first: &[BufferSpan],
        second: &[BufferSpan],
        body: impl FnMut(usize) -> std::result::Result<(), E>,
    ) -> std::result::Result<Self, E> {
        Self::record_with(device, first, second, device.tuning().graphs.programmatic, body)
    }

    fn record_with<E: From<GpuError>>(
        device: &GpuDevice,
        first: &[BufferSpan],
        second: &[BufferSpan],
        programmatic: bool,
        mut body: impl FnMut(usize) -> std::result::Result<(), E>,
    ) -> std::result::Result<Self, E> {
        if first.len() != second.len() || first.iter().zip(second).any(|(a, b)| a.bytes != b.bytes) {
            return Err(GpuError::LengthMismatch { expected: first.len(), actual: second.len() }.into());
        }
        let ((), graph) = device.capture_graph(|| body(0))?;
        let ((), other) = device.capture_graph(|| body(1))?;
        let recorded = kernel_nodes(&graph)?;
        let compared = kernel_nodes(&other)?;
        if recorded.len() != compared.len() {
            return Err(unrelocatable("the two recordings have different kernel counts".to_string()).into());
        }
        let inside = |spans: &[BufferSpan], word: u64| {
            spans.iter().position(|s| word >= s.address && word - s.address < s.bytes as u64)
        };
        let mut nodes = Vec::with_capacity(recorded.len());
        for ((node, launch), (_, other_launch)) in recorded.into_iter().zip(compared) {
            let same_launch = launch.func == other_launch.func
                && (launch.gridDimX, launch.gridDimY, launch.gridDimZ)
                    == (other_launch.gridDimX, other_launch.gridDimY, other_launch.gridDimZ)
                && (launch.blockDimX, launch.blockDimY, launch.blockDimZ, launch.sharedMemBytes)
                    == (
                        other_launch.blockDimX,
                        other_launch.blockDimY,
                        other_launch.blockDimZ,
                        other_launch.sharedMemBytes,
                    );
            if !same_launch {
                return Err(unrelocatable("the two recordings launch different kernels or shapes".to_string()).into());
            }
            let (values, offsets) = parameter_words(&launch)?;
            let (other_values, _) = parameter_words(&other_launch)?;
            let mut sites = Vec::new();
            for (word, (&a, &b)) in values.iter().zip(&other_values).enumerate() {
                if a == b {
                    continue;
                }
                let buffer = inside(first, a).filter(|&k| inside(second, b) == Some(k));
                match buffer {
                    Some(k) if a - first[k].address == b - second[k].address => {
                        sites.push(AddressSite { at: word, buffer: k, delta: a - first[k].address });
                    }
                    _ => {
                        return Err(unrelocatable(format!(
                            "parameter word {word} differs between the recordings and is no template address"
                        ))
                        .into());
                    }
                }
            }
            if !sites.is_empty() {
                // The executable graphs were made from this recording: they hold `values`.
                nodes.push(RelocatedNode { node, launch, values, offsets, sites, in_exec: true });
            }
        }
        let programmatic = if programmatic { make_programmatic(&graph).ok() } else { None };
        Ok(Self { programmatic, graph: SendGraph(graph), nodes, templates: first.iter().map(|s| s.bytes).collect() })
    }

    /// Queues the graph on `device`'s stream with template `k` replaced by `buffers[k]` (the
    /// same sizes as the templates; the caller keeps them alive until the work is done).
    /// Errors with [`GpuError::LengthMismatch`] for other sizes (nothing is queued), or with
    /// the driver's error.
    pub fn launch(&mut self, device: &GpuDevice, buffers: &[BufferSpan]) -> Result<()> {
        use cudarc::driver::sys;
        if buffers.len() != self.templates.len() {
            return Err(GpuError::LengthMismatch { expected: self.templates.len(), actual: buffers.len() });
        }
        if let Some((span, &bytes)) = buffers.iter().zip(&self.templates).find(|(s, b)| s.bytes != **b) {
            return Err(GpuError::LengthMismatch { expected: bytes, actual: span.bytes });
        }
        let exec = self.programmatic.as_ref().map_or_else(|| self.graph.0.cu_graph_exec(), |p| p.0);
        for node in &mut self.nodes {
            let unchanged =
                node.sites.iter().all(|site| node.values[site.at] == buffers[site.buffer].address + site.delta);
            if unchanged && node.in_exec {
                // The update would write what the executable graph holds already (a call on
                // the same operands, or an output the pool handed back at the same address).
                continue;
            }
            for site in &node.sites {
                node.values[site.at] = buffers[site.buffer].address + site.delta;
            }
            node.in_exec = false;
            let base = node.values.as_mut_ptr() as *mut u8;
            // SAFETY: every offset is inside `values` (parameter_words sized it).
            let mut pointers: Vec<*mut std::ffi::c_void> =
                node.offsets.iter().map(|&offset| unsafe { base.add(offset) } as *mut std::ffi::c_void).collect();
            let mut launch = node.launch;
            launch.kernelParams = pointers.as_mut_ptr();
            // SAFETY: `node` is a kernel node of the graph `exec` was made from, `launch` its
            // own recorded launch with only address words changed to buffers of the templates'
            // sizes; the driver copies the values before returning.
            unsafe { sys::cuGraphExecKernelNodeSetParams_v2(exec, node.node, &launch) }
                .result()
                .map_err(|e| GpuError::driver("cuGraphExecKernelNodeSetParams", e))?;
            node.in_exec = true;
        }
        // SAFETY: `exec` is this graph's own, live while `self` is.
        unsafe { device.launch_graph_exec(exec) }
    }

    /// Whether the graph runs with programmatic dependencies
    /// ([`record_programmatic`](Self::record_programmatic)).
    pub fn is_programmatic(&self) -> bool {
        self.programmatic.is_some()
    }
}
