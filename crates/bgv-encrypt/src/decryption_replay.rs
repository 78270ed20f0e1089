//! BGV decryption on the GPU replayed as a CUDA graph.
//!
//! A decryption is two or three kernels (the inverse transform's passes with `c_0 + c_1 s`
//! loaded, and the centered lift modulo `t`), each a few microseconds at small `N`, and the
//! host needs about 3.5 us to launch each (plus an allocation and a free of the transform's
//! scratch), so at small `N` the device waits for the host. Here the launches are recorded
//! once per level and correction factor as a [`RelocatableGraph`] whose scratch the cache
//! owns; each call then allocates its output, re-points the graph at its ciphertext, key and
//! output, and launches it: one graph launch and an update per kernel. The kernels and their
//! arguments are the direct path's, so the words are the same. The device's `GraphTuning`
//! (`replay`, `max_degree`) turns it off or moves the bound
//! ([`poly_cuda::graph`]).

use std::sync::{Mutex, PoisonError};

use poly::{Coeff, Eval};
use poly_cuda::cudarc::driver::CudaSlice;
use poly_cuda::graph::{BufferSpan, RelocatableGraph};
use poly_cuda::raw::CenteredLift;
use poly_cuda::{DevicePoly, GpuBackend, GpuError};

use crate::backend::{DecryptionTables, GpuDecryption, ReduceOutput, queue_reduce_phase};
use crate::{BgvError, Result};

/// The largest ring degree whose decryptions are replayed by default. H100, five processes
/// each way alternated, DecryptResident medians (us), direct -> replayed: 2^12 14.6 -> 13.4,
/// 2^14 19.6 -> 16.8, 2^15 30.2 -> 29.6; 2^16 76.2 -> 78.0 (there the device's own time
/// bounds the call, and replay is left off). Since the direct path launches its kernels
/// programmatically (`poly_cuda::kernel`), it is the faster one at 2^15: 28.4-28.9 us against
/// 33.2-33.7 replayed, four processes each way alternated (docs/perf, programmatic launches).
pub const DECRYPTION_REPLAY_MAX_DEGREE: usize = 1 << 14;
/// Recorded decryptions a level keeps (by context and correction factor; oldest dropped first).
const MAX_ENTRIES: usize = 4;

/// One recorded decryption: its graph (`None` where recording failed: that signature then
/// runs directly) and the scratch polynomial the graph writes the transform into.
struct Recorded {
    context_id: u64,
    factor: u64,
    graph: Option<RelocatableGraph>,
    _scratch: DevicePoly<Coeff>,
}

/// A level's recorded decryptions (part of [`GpuDecryption`]).
#[derive(Default)]
pub(crate) struct DecryptionReplays {
    entries: Mutex<Vec<Recorded>>,
}

impl std::fmt::Debug for DecryptionReplays {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let count = self.entries.lock().map_or(0, |entries| entries.len());
        f.debug_struct("DecryptionReplays").field("entries", &count).finish()
    }
}

/// What every decryption of one level and correction factor on one device shares: the tables
/// (and their device copy), the level's cached lift, and `f^{-1} mod t`.
pub(crate) struct Decryption<'a> {
    pub(crate) backend: &'a GpuBackend,
    pub(crate) tables: &'a DecryptionTables,
    pub(crate) prepared: &'a GpuDecryption,
    pub(crate) lift: &'a CenteredLift,
    pub(crate) factor: u64,
}

impl Decryption<'_> {
    /// Queues the decryption of `(c0, acc, s)` into `out` (`N` words) with `scratch` for the
    /// transform, allocating nothing: the lift fused into the transform's last pass where that
    /// path exists, else the scaled transform and `bgv_reduce_phase`.
    fn queue(
        &self,
        [c0, acc, s]: [&DevicePoly<Eval>; 3],
        scratch: &mut DevicePoly<Coeff>,
        out: &mut CudaSlice<u64>,
    ) -> Result<()> {
        let (lift, factor) = (self.lift, self.factor);
        if c0.inverse_of_mul_add_lifted_into(acc, s, lift, factor, scratch, out).map_err(BgvError::from_backend)? {
            return Ok(());
        }
        c0.inverse_of_mul_add_scaled_into(acc, s, lift.scale(), scratch).map_err(BgvError::from_backend)?;
        let per_limb = self.prepared.per_limb();
        queue_reduce_phase(self.backend, self.tables, per_limb, scratch, factor, true, ReduceOutput::Device(out))
    }

    /// The decryption of `(c0, acc, s)` (checked by the caller, over the context of the cached
    /// lift) replayed from its recorded graph, recording it on the first call of its context
    /// and factor: the `N` words in a fresh buffer. `Ok(None)`, with nothing queued, where it is
    /// not replayed (recording failed, or operands of other sizes than the level's).
    pub(crate) fn replay(&self, operands: [&DevicePoly<Eval>; 3]) -> Result<Option<CudaSlice<u64>>> {
        let device = self.backend.device();
        let context = operands[0].context();
        let n = context.ring().degree();
        let poly_len = context.ring().poly_len();
        if operands.iter().any(|p| p.device_buffer().len() != poly_len) {
            return Ok(None);
        }
        let mut entries = self.prepared.replays().entries.lock().unwrap_or_else(PoisonError::into_inner);
        let index = match entries.iter().position(|e| e.context_id == context.id() && e.factor == self.factor) {
            Some(index) => index,
            None => {
                let recorded = self.record(context)?;
                if entries.len() >= MAX_ENTRIES {
                    entries.remove(0);
                }
                entries.push(recorded);
                entries.len() - 1
            }
        };
        let Some(graph) = entries[index].graph.as_mut() else {
            return Ok(None);
        };
        // SAFETY: the graph's last kernel writes all N words before anything reads them.
        let out = unsafe { device.stream().alloc::<u64>(n) }
            .map_err(|e| BgvError::from_backend(GpuError::alloc(n * size_of::<u64>(), e)))?;
        let mut spans: Vec<BufferSpan> = operands.iter().map(|p| BufferSpan::of(p.device_buffer(), device)).collect();
        spans.push(BufferSpan::of(&out, device));
        graph.launch(device, &spans).map_err(BgvError::from_backend)?;
        Ok(Some(out))
    }

    /// Records the decryption over `context` on two sets of zero templates (the graph
    /// re-points them), with a scratch of its own. A recording failure is kept as
    /// `graph: None`.
    fn record(&self, context: &poly_cuda::GpuContext) -> Result<Recorded> {
        let device = self.backend.device();
        let n = context.ring().degree();
        let template = || -> Result<([DevicePoly<Eval>; 3], CudaSlice<u64>)> {
            let zero = || DevicePoly::<Eval>::zero(context).map_err(BgvError::from_backend);
            let out = device
                .stream()
                .alloc_zeros::<u64>(n)
                .map_err(|e| BgvError::from_backend(GpuError::alloc(n * size_of::<u64>(), e)))?;
            Ok(([zero()?, zero()?, zero()?], out))
        };
        let mut templates = [template()?, template()?];
        let mut scratch = DevicePoly::<Coeff>::zero(context).map_err(BgvError::from_backend)?;
        let spans: Vec<Vec<BufferSpan>> = templates
            .iter()
            .map(|(polys, out)| {
                let mut spans: Vec<BufferSpan> =
                    polys.iter().map(|p| BufferSpan::of(p.device_buffer(), device)).collect();
                spans.push(BufferSpan::of(out, device));
                spans
            })
            .collect();
        // Every kernel of a decryption waits for the one before it (kernels/include/
        // dependent_launch.cuh), so their launches may overlap.
        let graph = RelocatableGraph::record_programmatic(device, &spans[0], &spans[1], |k| {
            let ([c0, acc, s], out) = &mut templates[k];
            self.queue([c0, acc, s], &mut scratch, out)
        })
        .ok();
        // The templates are never read by the graph's launches (every one is re-pointed); they
        // are freed here, after the (not run) recordings.
        drop(templates);
        Ok(Recorded { context_id: context.id(), factor: self.factor, graph, _scratch: scratch })
    }
}
