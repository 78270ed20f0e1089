//! Whole key switches ([`GpuKeySwitch::switch_key`], [`GpuKeySwitch::switch_key_eval`]) recorded
//! as CUDA graphs and replayed on staging copies of their inputs.

use poly::{Coeff, Eval};
use poly_cuda::cudarc::driver::CudaSlice;
use poly_cuda::graph::Replay;
use poly_cuda::{DevicePoly, GpuContext, GpuError};

use super::{GpuKeySwitch, replayable};
use crate::gpu::{Result, check_poly};
use crate::{Extension, check_len};

/// A key switch on given inputs (the call's or the staging copies): its two output buffers.
pub(super) type KeySwitchRun<'a> =
    dyn Fn(&DevicePoly<Coeff>, [Option<&DevicePoly<Eval>>; 2]) -> Result<Vec<CudaSlice<u64>>> + 'a;

/// Which key switch a recording holds (part of its signature).
#[derive(Debug, Clone, Copy)]
pub(super) enum ReplayKind {
    Coefficients = 1,
    Evaluations = 2,
}

/// The two output buffers of a key switch as polynomials over `ring_q`.
pub(super) fn two_polys<R: poly::Representation>(
    ring_q: &GpuContext,
    outputs: Vec<CudaSlice<u64>>,
) -> Result<[DevicePoly<R>; 2]> {
    let count = outputs.len();
    let mut outputs = outputs.into_iter();
    match (outputs.next(), outputs.next(), outputs.next()) {
        (Some(b), Some(a), None) => {
            Ok([DevicePoly::from_device_buffer(ring_q, b)?, DevicePoly::from_device_buffer(ring_q, a)?])
        }
        _ => Err(GpuError::LengthMismatch { expected: 2, actual: count }.into()),
    }
}

/// The staging inputs of a recorded key switch, with the rings its launches read (held, so
/// their tables outlive the graph).
#[derive(Debug)]
pub(super) struct Staging {
    pub(super) input: DevicePoly<Coeff>,
    pub(super) addends: [Option<DevicePoly<Eval>>; 2],
    /// `q u P`, `P` and `q`: held, never read.
    #[allow(dead_code)]
    pub(super) rings: [GpuContext; 3],
}

impl GpuKeySwitch {
    /// The largest degree whose evaluation-form key switching ([`switch_key_eval`](Self::switch_key_eval))
    /// is replayed as a CUDA graph by default (`poly_cuda::graph::replay_enabled_up_to`). H100,
    /// 2026-11-24, eight rounds in three device calls: BGV Mul+Relin at 16384 3-11% faster replayed
    /// (host-bound there: the direct path issues a dozen launches); at 32768 slower (189.7 /
    /// 192.7 us against 182.0 / 171.2). Coefficient-form switching (BFV) keeps the default 2^13
    /// (its Mul+Relin at 16384 measured 2% slower replayed).
    pub const EVAL_REPLAY_MAX_DEGREE: usize = 1 << 14;

    /// Key switching of `input` (coefficients over `q`) in the coefficient representation:
    /// [`key_switch_accumulate`](Self::key_switch_accumulate) (exact or fast ModUp by
    /// `extension`), the inverse transform of both sums, then
    /// [`mod_down_batch`](Self::mod_down_batch): `[ks_b, ks_a]` over `q`, the same words and
    /// errors as those steps. Replayed as a CUDA graph where `poly_cuda::graph` says so (see
    /// [`switch_key_eval`](Self::switch_key_eval)).
    pub fn switch_key(
        &self,
        input: &DevicePoly<Coeff>,
        key: &[(DevicePoly<Eval>, DevicePoly<Eval>)],
        extension: Extension,
        ring_qp: &GpuContext,
        ring_q: &GpuContext,
    ) -> Result<[DevicePoly<Coeff>; 2]> {
        let run = |input: &DevicePoly<Coeff>, _: [Option<&DevicePoly<Eval>>; 2]| -> Result<Vec<CudaSlice<u64>>> {
            let sums = self.key_switch_accumulate(input, key, extension, ring_qp)?.inverse()?;
            Ok(self.mod_down_batch(&sums, ring_q)?.into_iter().map(DevicePoly::into_device_buffer).collect())
        };
        let outputs =
            if poly_cuda::graph::replay_enabled(ring_qp.device(), self.row) && replayable(ring_qp.ring().transform()) {
                let rings = [ring_qp, ring_q, ring_q];
                self.replayed(ReplayKind::Coefficients, input, [None, None], key, extension, rings, 1, &run)?
            } else {
                run(input, [None, None])?
            };
        two_polys(ring_q, outputs)
    }

    /// Key switching of `input` (coefficients over `q`) in the evaluation representation:
    /// [`key_switch_accumulate`](Self::key_switch_accumulate) (exact or fast ModUp by
    /// `extension`) then [`mod_down_eval`](Self::mod_down_eval) onto `addends`; the same words
    /// and errors as those two (and a [`RnsError::ContextMismatch`](crate::RnsError::ContextMismatch) for an `input_eval` not over
    /// `q`). `input_eval`, the input's evaluations where the caller has them, lets the fused
    /// inner product read the digits' own limbs instead of transforming them (hybrid digits of
    /// one size, not in a replay). Over NTT rings of a degree that `poly_cuda::graph` replays
    /// (`N <= 2^14` by default), the launches are recorded once per key and rings as a CUDA graph
    /// and replayed: one copy of the inputs, the graph, one copy of the outputs, where the
    /// direct path issues a dozen launches from the host.
    #[allow(clippy::too_many_arguments)]
    pub fn switch_key_eval(
        &self,
        input: &DevicePoly<Coeff>,
        key: &[(DevicePoly<Eval>, DevicePoly<Eval>)],
        extension: Extension,
        ring_qp: &GpuContext,
        ring_p: &GpuContext,
        ring_q: &GpuContext,
        error_scale: u64,
        addends: [Option<&DevicePoly<Eval>>; 2],
        input_eval: Option<&DevicePoly<Eval>>,
    ) -> Result<[DevicePoly<Eval>; 2]> {
        let chunk = self.default_chunk_digits();
        let run_with = |input: &DevicePoly<Coeff>,
                        input_eval: Option<&DevicePoly<Eval>>,
                        addends: [Option<&DevicePoly<Eval>>; 2]|
         -> Result<Vec<CudaSlice<u64>>> {
            // The sums' special limbs go straight to their own buffer, which ModDown transforms back.
            let mut special = self.kernels.alloc_for_kernels(2 * self.p.len() * self.row)?;
            let sums =
                self.accumulate_in_chunks(input, input_eval, key, extension, ring_qp, chunk, Some(&mut special))?;
            let [b, a] = self.mod_down_eval_split(&sums, special, ring_p, ring_q, error_scale, addends)?;
            Ok(vec![b.into_device_buffer(), a.into_device_buffer()])
        };
        let replay = poly_cuda::graph::replay_enabled_up_to(ring_qp.device(), self.row, Self::EVAL_REPLAY_MAX_DEGREE);
        let outputs = if replay && replayable(ring_qp.ring().transform()) {
            // A replay does not read the input's evaluations; they are checked as the direct
            // path checks them (accumulate_in_chunks).
            self.own_limbs(input_eval)?;
            // The recording's staging holds the coefficients only: every limb is transformed.
            let run =
                |input: &DevicePoly<Coeff>, addends: [Option<&DevicePoly<Eval>>; 2]| run_with(input, None, addends);
            let rings = [ring_qp, ring_p, ring_q];
            self.replayed(ReplayKind::Evaluations, input, addends, key, extension, rings, error_scale, &run)?
        } else {
            run_with(input, input_eval, addends)?
        };
        two_polys(ring_q, outputs)
    }

    /// `run(input, addends)` by the graph recorded for this kind, key, rings and inputs'
    /// contexts (recorded on first use; `run` on staging copies of the inputs).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn replayed(
        &self,
        kind: ReplayKind,
        input: &DevicePoly<Coeff>,
        addends: [Option<&DevicePoly<Eval>>; 2],
        key: &[(DevicePoly<Eval>, DevicePoly<Eval>)],
        extension: Extension,
        rings: [&GpuContext; 3],
        error_scale: u64,
        run: &KeySwitchRun<'_>,
    ) -> Result<Vec<CudaSlice<u64>>> {
        // The checks of the direct path on what the staging copies take, before the cache is
        // consulted: a bad call never records anything.
        check_poly(&self.kernels, input.context(), &self.q, self.degree, "key-switching input")?;
        for addend in addends.iter().flatten() {
            check_poly(&self.kernels, addend.context(), &self.q, self.degree, "ModDown addend")?;
        }
        check_len("key-switching key digits", self.digits.len(), key.len())?;
        let mut signature = vec![
            kind as u64,
            rings[0].id(),
            rings[1].id(),
            rings[2].id(),
            input.context().id(),
            addends[0].map_or(0, |a| a.context().id()),
            addends[1].map_or(0, |a| a.context().id()),
            u64::from(extension == Extension::Exact),
            error_scale,
        ];
        for (b, a) in key {
            signature.push(self.kernels.read_address(b.device_buffer())?);
            signature.push(self.kernels.read_address(a.device_buffer())?);
        }
        let device = rings[2].device();
        let make_staging = || -> Result<Staging> {
            let [first, second] = addends.map(|addend| addend.map(|a| DevicePoly::zero(a.context())));
            Ok(Staging {
                input: DevicePoly::zero(input.context())?,
                addends: [first.transpose()?, second.transpose()?],
                rings: rings.map(GpuContext::clone),
            })
        };
        let load = |staging: &mut Staging| -> Result<()> {
            let Staging { input: staged_input, addends: staged_addends, .. } = staging;
            let mut pairs = vec![(input.device_buffer(), staged_input.device_buffer_mut())];
            for (addend, staged) in addends.iter().zip(staged_addends.iter_mut()) {
                if let (Some(addend), Some(staged)) = (addend, staged.as_mut()) {
                    pairs.push((addend.device_buffer(), staged.device_buffer_mut()));
                }
            }
            Ok(poly_cuda::graph::copy_buffers(device, &mut pairs)?)
        };
        let body = |staging: &Staging| -> Result<Vec<CudaSlice<u64>>> {
            let [a0, a1] = &staging.addends;
            run(&staging.input, [a0.as_ref(), a1.as_ref()])
        };
        let direct = || run(input, addends);
        let replay = Replay { signature, make_staging: &make_staging, load: &load, body: &body, direct: &direct };
        self.replays.run(device, &replay)
    }
}
