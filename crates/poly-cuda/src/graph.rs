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
//! Stream contract: everything is queued on the device's stream, in order; the cache's lock is
//! held while a call queues its copies and its graph, so calls from several threads never
//! share staging buffers out of order. Knobs (read once per process): `HEGPU_GRAPHS=0` turns
//! replay off; `HEGPU_GRAPH_MAX_DEGREE` (default [`DEFAULT_MAX_DEGREE`], or an operation's own:
//! [`replay_enabled_up_to`]) is the largest ring degree replayed.

use std::sync::{Mutex, OnceLock, PoisonError};

use cudarc::driver::{CudaGraph, CudaSlice};

use crate::GpuDevice;
use crate::error::{GpuError, Result};

/// Environment knob: `0` turns graph replay off (every call launches its kernels directly).
pub const GRAPHS_ENV: &str = "HEGPU_GRAPHS";
/// Environment knob: the largest ring degree whose operations are replayed.
pub const GRAPH_MAX_DEGREE_ENV: &str = "HEGPU_GRAPH_MAX_DEGREE";
/// Above this degree the kernels outlast their launches and replay saves little (the
/// copies in and out cost bandwidth instead).
pub const DEFAULT_MAX_DEGREE: usize = 1 << 13;
/// Signatures a cache keeps (the oldest is dropped first).
const MAX_ENTRIES: usize = 8;

/// Whether operations over rings of degree `degree` are replayed (see the module's knobs), with
/// [`DEFAULT_MAX_DEGREE`] as the bound where the knob does not set one.
pub fn replay_enabled(degree: usize) -> bool {
    replay_enabled_up_to(degree, DEFAULT_MAX_DEGREE)
}

/// [`replay_enabled`] for an operation whose own default bound is `default_max_degree` (an
/// operation that measured faster replayed at larger degrees); `HEGPU_GRAPH_MAX_DEGREE`, where
/// set, is every operation's bound.
pub fn replay_enabled_up_to(degree: usize, default_max_degree: usize) -> bool {
    static KNOBS: OnceLock<(bool, Option<usize>)> = OnceLock::new();
    let (on, max_degree) = *KNOBS.get_or_init(|| {
        let on = std::env::var(GRAPHS_ENV).map_or(true, |v| v != "0");
        let max_degree = std::env::var(GRAPH_MAX_DEGREE_ENV).ok().and_then(|v| v.parse::<usize>().ok());
        (on, max_degree)
    });
    on && degree <= max_degree.unwrap_or(default_max_degree)
}

/// `dst[k] <- src[k]` for every pair, up to four buffers per launch, on `device`'s stream.
/// Errors with [`GpuError::LengthMismatch`] unless each pair has equal, even lengths (nothing
/// is queued then).
pub fn copy_buffers(device: &GpuDevice, pairs: &mut [(&CudaSlice<u64>, &mut CudaSlice<u64>)]) -> Result<()> {
    crate::launch::copy_many(device, pairs)
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
