//! How a transform is split into kernel launches: [`NttSchedule`] (the passes of `2^log_n`,
//! once per context) and, per launch, each pass's kernel and shape by the launch's size
//! ([`ntt_passes`]), under the device's [`NttTuning`] (whose fields give the measurements
//! behind the default shapes).

use super::passes::{
    ButterflyPipe, CONTIGUOUS_BLOCK_WORDS, KernelTable, NttPass, PASS_KERNELS, PassFunction, PassKind, STRIDED_COLUMNS,
    contiguous_config, find_pass_kernel, pass_kernel_exists, single_pass, strided_config,
};
use crate::error::{GpuError, Result};
use crate::tuning::NttTuning;

/// How `kernels/ntt.cu` splits a transform of size `2^log_n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NttSchedule {
    /// One block per limb does every stage (`10 <= log_n <= 12`): one SM per limb.
    Single { log_n: u32 },
    /// The first `strided` stages by the strided kernel, the other `contiguous` stages by
    /// the contiguous kernel: every limb spread over several SMs. Small launches of such a
    /// context may still run single-block passes (`single_launch`).
    TwoPass { strided: u32, contiguous: u32 },
}

/// The largest `log2(N)` of the single-block launches of small launches
/// ([`NttTuning::single_launch_points`]); [`NttTuning::single_pass_max_log_n`] still forces
/// single-block passes up to `N = 2^12`. At 2^12 x 3 limbs two passes measured faster (8.5 /
/// 8.8 us forward / inverse against 11.1 / 11.3, H100).
pub const SINGLE_LAUNCH_MAX_LOG_N: u32 = 11;
/// The radix-4 strided passes of [`NttTuning::short_strided_launch_points`] take launches of
/// more than this many points only: below, at 2^12 over 9-17 limbs, BFV's `phantom-4096`
/// Mul+Relin measured slower with them (66.9 / 74.9 us without, 77.6 / 80.3 with, HPS, two
/// processes each).
pub const SHORT_STRIDED_MIN_POINTS: usize = 1 << 18;

impl NttSchedule {
    /// The schedule of `2^log_n` under `tuning` (read once per [`GpuContext`](crate::GpuContext)):
    /// its [`splits`](NttTuning::splits) and [`single_pass_max_log_n`](NttTuning::single_pass_max_log_n)
    /// where given, else the default splits below (their measurements: [`NttTuning::splits`]).
    pub(crate) fn for_log_degree(log_n: u32, tuning: &NttTuning) -> Result<Self> {
        let single_max = tuning.single_pass_max_log_n.unwrap_or(0);
        if let Some((strided, contiguous)) = tuning.split_for(log_n).filter(|_| log_n > single_max) {
            return Ok(NttSchedule::TwoPass { strided, contiguous });
        }
        Ok(match log_n {
            10..=12 if log_n <= single_max => NttSchedule::Single { log_n },
            10 => NttSchedule::TwoPass { strided: 5, contiguous: 5 },
            11 => NttSchedule::TwoPass { strided: 6, contiguous: 5 },
            12 => NttSchedule::TwoPass { strided: 6, contiguous: 6 },
            13 => NttSchedule::TwoPass { strided: 7, contiguous: 6 },
            14 => NttSchedule::TwoPass { strided: 7, contiguous: 7 },
            15 => NttSchedule::TwoPass { strided: 6, contiguous: 9 },
            16 => NttSchedule::TwoPass { strided: 7, contiguous: 9 },
            17 => NttSchedule::TwoPass { strided: 8, contiguous: 9 },
            _ => {
                return Err(GpuError::Unsupported {
                    what: format!("NTT of degree 2^{log_n} (kernels cover 2^10..=2^17)"),
                });
            }
        })
    }
}

/// `(log2 points per thread, columns per block)` of a pass of `2^log_m` points in a launch
/// of `points` points. Radix 4 for the contiguous pass of small launches (latency-bound: more
/// threads, shorter chains), the medium shapes for medium launches, radix 4 for strided passes
/// of at most 64 points in launches of more than [`SHORT_STRIDED_MIN_POINTS`] and up to
/// [`NttTuning::short_strided_launch_points`], else radix 8, or 16 for
/// strided passes of more than 64 points (fewer shared-memory round trips; H100, N = 2^16 x
/// 32: 43.8 us forward against 44.2 with radix 8); `knobs`' radices override where a kernel
/// exists. `function`: the multiply-add pass has a medium bound of its own.
pub(super) fn pass_shape(
    knobs: &NttTuning,
    function: PassFunction,
    kind: PassKind,
    log_m: u32,
    points: usize,
) -> (u32, u32) {
    let default_columns = match kind {
        PassKind::Strided => STRIDED_COLUMNS,
        PassKind::Contiguous => CONTIGUOUS_BLOCK_WORDS >> log_m,
    };
    let knob = match kind {
        PassKind::Strided => knobs.strided_log_radix,
        PassKind::Contiguous => knobs.contiguous_log_radix,
    };
    if let Some(r) = knob.filter(|&r| pass_kernel_exists(kind, log_m, r, default_columns)) {
        return (r, default_columns);
    }
    if kind == PassKind::Contiguous
        && points <= knobs.small_launch_points
        && pass_kernel_exists(kind, log_m, 2, default_columns)
    {
        return (2, default_columns);
    }
    let (medium_points, medium) = match kind {
        PassKind::Strided => (knobs.medium_launch_points, knobs.medium_strided),
        PassKind::Contiguous => {
            let (r, words) = knobs.medium_contiguous;
            let bound = match function {
                PassFunction::InverseMulAdd => {
                    knobs.medium_contiguous_launch_points.max(knobs.mul_add_medium_launch_points)
                }
                _ => knobs.medium_contiguous_launch_points,
            };
            (bound, (r, words >> log_m))
        }
    };
    if points > knobs.small_launch_points
        && points <= medium_points
        && pass_kernel_exists(kind, log_m, medium.0, medium.1)
    {
        return medium;
    }
    if kind == PassKind::Strided
        && points > SHORT_STRIDED_MIN_POINTS.max(knobs.small_launch_points)
        && points <= knobs.short_strided_launch_points
        && pass_kernel_exists(kind, log_m, 2, default_columns)
    {
        return (2, default_columns);
    }
    match kind {
        PassKind::Strided if log_m > 6 => (4, default_columns),
        _ => (3, default_columns),
    }
}

/// Whether a launch over `grid_y` limbs of `2^log_n` points runs as one single-block pass per
/// limb (the single-block kernels take the same arguments; they ignore the chunk roots).
pub(super) fn single_launch(tuning: &NttTuning, log_n: u32, grid_y: u32) -> bool {
    log_n <= SINGLE_LAUNCH_MAX_LOG_N && ((grid_y as usize) << log_n) <= tuning.single_launch_points
}

/// One two-pass pass: its kernel (on `pipe`) and launch shape.
#[allow(clippy::too_many_arguments)]
pub(super) fn pass_launch(
    tuning: &NttTuning,
    function: PassFunction,
    kind: PassKind,
    n: u32,
    log_m: u32,
    grid_y: u32,
    first: bool,
    pipe: ButterflyPipe,
) -> Result<NttPass> {
    // The two-pass kernels leave the stage-0 scale out of their contiguous inverse passes
    // (kernels/ntt.cu, CAN_SCALE): such a pass must not cover the whole transform.
    if kind == PassKind::Contiguous && (1u64 << log_m) >= u64::from(n) {
        return Err(GpuError::Unsupported {
            what: format!("a two-pass transform of 2^{log_m} points whose contiguous pass covers all of them"),
        });
    }
    let points = n as usize * grid_y as usize;
    let (log_radix, columns) = pass_shape(tuning, function, kind, log_m, points);
    let found = find_pass_kernel(kind, log_m, log_radix, columns)
        .and_then(|index| PASS_KERNELS.get(index)?.names_on(pipe).get(function).map(|name| (index, name)));
    let (index, name) = found.ok_or_else(|| GpuError::Unsupported {
        what: format!(
            "NTT {kind:?} pass ({function:?}) of 2^{log_m} points with 2^{log_radix} points per thread, \
             {columns} sub-transforms per block"
        ),
    })?;
    let config = match kind {
        PassKind::Strided => strided_config(n, log_m, log_radix, columns, grid_y),
        PassKind::Contiguous => contiguous_config(n, log_m, log_radix, columns, grid_y),
    };
    Ok(NttPass { name, table: KernelTable::Pass, index, pipe, function, config, first })
}

/// What a launch sequence of `kernels/ntt.cu` computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NttTransform {
    /// The forward transform; its first pass may read a separate source buffer.
    Forward,
    /// The inverse transform.
    Inverse,
    /// The inverse transform of the element-wise product with a factor, which its first pass
    /// takes as it loads.
    InverseOfProduct,
    /// The inverse transform of `addend + source * factor`, which its first pass loads.
    InverseOfMulAdd,
    /// The inverse transform of another buffer, which its first pass reads (out of place).
    InverseFrom,
    /// The forward transform whose first pass leaves out the own limbs of key switching's
    /// digits (their rows are read in the evaluation representation by the fused inner
    /// product; two passes only).
    ForwardSkippingOwn,
    /// The forward transform of the ModUp of one-prime digits, which its first pass loads.
    ForwardOfExtension,
    /// The forward transform whose last pass stores through ModDown's epilogue (two passes
    /// only).
    ForwardModDown,
}

/// The kernels of one transform and their launch shapes, in launch order: one single-block
/// kernel (small N, or small launches), or the strided then contiguous pass (forward; the
/// inverse runs them in the opposite order), whose butterflies run on `pipe`. The inverse of a
/// product runs the product variant of its first kernel.
pub(super) fn ntt_passes(
    tuning: &NttTuning,
    transform: NttTransform,
    schedule: &NttSchedule,
    log_n: u32,
    grid_y: u32,
    pipe: ButterflyPipe,
) -> Result<Vec<NttPass>> {
    let n = 1u32 << log_n;
    let (first_function, later_function) = match transform {
        NttTransform::Forward => (PassFunction::Forward, PassFunction::Forward),
        NttTransform::Inverse => (PassFunction::Inverse, PassFunction::Inverse),
        NttTransform::InverseOfProduct => (PassFunction::InverseProduct, PassFunction::Inverse),
        NttTransform::InverseOfMulAdd => (PassFunction::InverseMulAdd, PassFunction::Inverse),
        NttTransform::InverseFrom => (PassFunction::InverseFrom, PassFunction::Inverse),
        NttTransform::ForwardSkippingOwn => (PassFunction::ForwardSkip, PassFunction::Forward),
        NttTransform::ForwardOfExtension => (PassFunction::ForwardExtend, PassFunction::Forward),
        NttTransform::ForwardModDown => (PassFunction::Forward, PassFunction::ForwardModDown),
    };
    let single = |log_n| -> Result<Vec<NttPass>> {
        if matches!(transform, NttTransform::ForwardModDown | NttTransform::ForwardSkippingOwn) {
            return Err(GpuError::Unsupported { what: format!("{transform:?} as a single-block transform") });
        }
        Ok(vec![single_pass(first_function, log_n, grid_y)?])
    };
    match *schedule {
        NttSchedule::Single { log_n } => single(log_n),
        NttSchedule::TwoPass { .. } if single_launch(tuning, log_n, grid_y) => single(log_n),
        NttSchedule::TwoPass { strided, contiguous } => {
            let (first_kind, first_log_m, later_kind, later_log_m) = match transform {
                NttTransform::Forward
                | NttTransform::ForwardOfExtension
                | NttTransform::ForwardModDown
                | NttTransform::ForwardSkippingOwn => (PassKind::Strided, strided, PassKind::Contiguous, contiguous),
                NttTransform::Inverse
                | NttTransform::InverseOfProduct
                | NttTransform::InverseOfMulAdd
                | NttTransform::InverseFrom => (PassKind::Contiguous, contiguous, PassKind::Strided, strided),
            };
            let first = pass_launch(tuning, first_function, first_kind, n, first_log_m, grid_y, true, pipe)?;
            let later = pass_launch(tuning, later_function, later_kind, n, later_log_m, grid_y, false, pipe)?;
            Ok(vec![first, later])
        }
    }
}
