//! How a transform is split into kernel launches: [`NttSchedule`] (the passes of `2^log_n`,
//! once per context) and, per launch, each pass's kernel and shape by the launch's size
//! ([`ntt_passes`]). The measured thresholds behind the shapes are documented on their
//! constants.

use super::passes::{
    CONTIGUOUS_BLOCK_WORDS, KernelTable, NttPass, PASS_KERNELS, PassFunction, PassKind, STRIDED_COLUMNS,
    contiguous_config, find_pass_kernel, pass_kernel_exists, single_pass, strided_config,
};
use crate::error::{GpuError, Result};

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

/// Environment variable (a tuning knob for benchmarks): the largest `log2(N)` that runs as a
/// single-block pass (`10`..=`12`); unset or anything else: every degree runs two passes.
pub const SINGLE_PASS_ENV: &str = "POLY_CUDA_NTT_SINGLE_PASS_MAX_LOG_N";
/// Environment variable (a tuning knob for benchmarks): the split of two-pass transforms,
/// `<log_n>:<strided>x<contiguous>` entries separated by commas (for example `15:7x8`), each
/// taken where both passes have kernels (strided 5..=8, contiguous 5..=9) and the two add up to
/// `log_n`; otherwise the default split of [`NttSchedule::for_log_degree`].
pub const SPLIT_ENV: &str = "POLY_CUDA_NTT_SPLIT";
/// Environment variable (a tuning knob for benchmarks): `log2` of the points per thread of the
/// strided passes (`2`..=`4`) where `kernels/ntt.cu` has such a kernel; otherwise the default.
pub const STRIDED_LOG_RADIX_ENV: &str = "POLY_CUDA_NTT_STRIDED_LOG_RADIX";
/// Environment variable (a tuning knob for benchmarks): `log2` of the points per thread of the
/// contiguous passes (`2`..=`4`) where `kernels/ntt.cu` has such a kernel; otherwise the default.
pub const CONTIGUOUS_LOG_RADIX_ENV: &str = "POLY_CUDA_NTT_CONTIGUOUS_LOG_RADIX";
/// Environment variable (a tuning knob for benchmarks): launches of at most this many points
/// (`polys * limbs * N`) run their contiguous pass with the radix-4 kernels (more threads,
/// shorter per-thread chains) where they exist; default [`DEFAULT_SMALL_LAUNCH_POINTS`].
pub const SMALL_LAUNCH_POINTS_ENV: &str = "POLY_CUDA_NTT_SMALL_LAUNCH_POINTS";
/// Launches of at most this many points fill few SMs: their latency, not their throughput,
/// sets their time, so their contiguous pass (the longer chain: it also generates its
/// twiddles) takes the radix-4 kernel. H100, N = 2^12 x 3 limbs, forward: 8.5 us against 8.9
/// with radix 8 and 8.8 with radix 4 in both passes.
pub const DEFAULT_SMALL_LAUNCH_POINTS: usize = 1 << 15;
/// Environment variable (a tuning knob for benchmarks): launches with
/// `N <= 2^SINGLE_LAUNCH_MAX_LOG_N` of at most this many points (`polys * limbs * N`) run as one
/// single-block pass per limb (one launch instead of two); default
/// [`DEFAULT_SINGLE_LAUNCH_POINTS`].
pub const SINGLE_LAUNCH_POINTS_ENV: &str = "POLY_CUDA_NTT_SINGLE_LAUNCH_POINTS";
/// Small launches are bound by launch latency, and one launch beats two where a single block
/// per limb is quick. H100, forward / inverse us, two passes -> single block: N = 2^10 x 4
/// limbs 8.6 / 8.5 -> 6.8 / 6.7; 2^11 x 4: 8.6 / 8.7 -> 7.9 / 7.8; but 2^12 x 3: 8.5 / 8.8 ->
/// 11.1 / 11.3, hence [`SINGLE_LAUNCH_MAX_LOG_N`].
pub const DEFAULT_SINGLE_LAUNCH_POINTS: usize = 1 << 15;
/// The largest `log2(N)` that [`SINGLE_LAUNCH_POINTS_ENV`] applies to (the environment variable
/// [`SINGLE_PASS_ENV`] still forces single-block passes up to `N = 2^12`).
pub const SINGLE_LAUNCH_MAX_LOG_N: u32 = 11;

/// Environment variable (a tuning knob for benchmarks): launches of more than the small
/// launches' points and at most this many (`polys * limbs * N`) take the medium strided shape
/// below where such a kernel exists; default [`DEFAULT_MEDIUM_LAUNCH_POINTS`], 0 turns it off.
pub const MEDIUM_LAUNCH_POINTS_ENV: &str = "POLY_CUDA_NTT_MEDIUM_LAUNCH_POINTS";
/// Environment variable (a tuning knob for benchmarks): the strided pass of medium launches,
/// `<log2 points per thread>x<columns per block>` (default `2x8`).
pub const MEDIUM_STRIDED_ENV: &str = "POLY_CUDA_NTT_MEDIUM_STRIDED";
/// Environment variable (a tuning knob for benchmarks): [`MEDIUM_LAUNCH_POINTS_ENV`] for the
/// contiguous pass; default [`DEFAULT_MEDIUM_CONTIGUOUS_LAUNCH_POINTS`].
pub const MEDIUM_CONTIGUOUS_LAUNCH_POINTS_ENV: &str = "POLY_CUDA_NTT_MEDIUM_CONTIGUOUS_LAUNCH_POINTS";
/// Environment variable (a tuning knob for benchmarks): the contiguous pass of medium launches,
/// `<log2 points per thread>x<points per block>` (default `2x512`).
pub const MEDIUM_CONTIGUOUS_ENV: &str = "POLY_CUDA_NTT_MEDIUM_CONTIGUOUS";
/// Medium launches fill less than a wave of the default shapes: at N = 2^14 over 8 limbs the
/// strided pass of 16 columns had 64 blocks for 132 SMs. Radix 4 with 8 columns per block
/// (twice the blocks, four times the threads) took the strided passes there from 4.9 to 3.8 us
/// (inverse) and from 4.6 to 3.6 us (forward), and at 2^14 x 24 limbs (3 x 2^17 points) from
/// 5.9 to 5.5 us; at 2^15 x 16 limbs (2^19 points) it was slower, 7.6 against 7.3 us (H100, ncu,
/// docs/perf/2026-11-25-h100-medium-launches.md).
pub const DEFAULT_MEDIUM_LAUNCH_POINTS: usize = 3 << 17;
/// The contiguous pass in radix 4 with blocks of 512 points: at 2^14 x 8 limbs 4.6 to 4.4 us
/// (inverse), 5.6 to 4.9 us (the decryption's multiply-add pass), at 2^14 x 16 limbs 8.2 to 7.5
/// us (ModDown's pass); at 2^14 x 24 limbs no faster (6.8 us), hence 2^18.
pub const DEFAULT_MEDIUM_CONTIGUOUS_LAUNCH_POINTS: usize = 1 << 18;
/// Environment variable (a tuning knob for benchmarks): [`MEDIUM_CONTIGUOUS_LAUNCH_POINTS_ENV`]
/// for the decryption's multiply-add pass (the first inverse pass loading
/// `addend + source * factor`); default [`DEFAULT_MUL_ADD_MEDIUM_LAUNCH_POINTS`], 0 leaves that
/// pass to the general bound.
pub const MUL_ADD_MEDIUM_LAUNCH_POINTS_ENV: &str = "POLY_CUDA_NTT_MUL_ADD_MEDIUM_LAUNCH_POINTS";
/// The multiply-add pass takes the medium contiguous shape at every size above the small
/// launches: it loads three words a point, and with radix 8 its blocks left the SMs at 21%
/// achieved occupancy (2^15 x 16 limbs). H100, ncu: 11.3 -> 10.0 us at 2^15 x 16 limbs, 35.6 ->
/// 32.5 us at 2^16 x 32 (docs/perf/2026-11-25-h100-decryption-shapes.md).
pub const DEFAULT_MUL_ADD_MEDIUM_LAUNCH_POINTS: usize = usize::MAX;
/// Environment variable (a tuning knob for benchmarks): launches of more than
/// [`SHORT_STRIDED_MIN_POINTS`] and at most this many points (`polys * limbs * N`) run their
/// strided passes of 2^5 and 2^6 points in radix 4 (16 columns a block, twice the threads of
/// radix 8); default [`DEFAULT_SHORT_STRIDED_LAUNCH_POINTS`], 0 turns it off.
pub const SHORT_STRIDED_LAUNCH_POINTS_ENV: &str = "POLY_CUDA_NTT_SHORT_STRIDED_LAUNCH_POINTS";
/// At 2^15 (strided passes of 2^6 points) over 16 limbs, 512 blocks of radix 8 hold 20% of the
/// warps an H100 can (ncu). Radix 4 took BGV's decryption there from 19.8 to 19.3 us of kernels
/// and its Mul+Relin from 137.2 to 136.0 us. Every strided pass of 2^6 points in radix 4 cost
/// BFV's `phantom-32768` Mul+Relin 1-2% (its extended bases have more limbs), hence at most
/// 2^19 points (docs/perf/2026-11-27-h100-tiled-decryption.md).
pub const DEFAULT_SHORT_STRIDED_LAUNCH_POINTS: usize = 1 << 19;
/// The radix-4 strided passes above take launches of more than this many points only: below,
/// at 2^12 over 9-17 limbs, BFV's `phantom-4096` Mul+Relin measured slower with them (66.9 /
/// 74.9 us without, 77.6 / 80.3 with, HPS, two processes each).
pub const SHORT_STRIDED_MIN_POINTS: usize = 1 << 18;
pub(super) const DEFAULT_MEDIUM_STRIDED: (u32, u32) = (2, 8);
pub(super) const DEFAULT_MEDIUM_CONTIGUOUS: (u32, u32) = (2, 512);

/// A knob of the form `<a>x<b>`.
pub(super) fn read_pair(name: &str) -> Option<(u32, u32)> {
    let value = std::env::var(name).ok()?;
    let (a, b) = value.split_once('x')?;
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}

/// The radix knobs, read once per process.
#[derive(Debug, Clone, Copy)]
pub(super) struct RadixKnobs {
    strided: Option<u32>,
    contiguous: Option<u32>,
    small_launch_points: usize,
    single_launch_points: usize,
    medium_launch_points: usize,
    short_strided_launch_points: usize,
    medium_contiguous_launch_points: usize,
    mul_add_medium_launch_points: usize,
    /// (log radix, columns) of medium launches' strided pass.
    medium_strided: (u32, u32),
    /// (log radix, points per block) of medium launches' contiguous pass.
    medium_contiguous: (u32, u32),
}

pub(super) fn radix_knobs() -> RadixKnobs {
    static KNOBS: std::sync::OnceLock<RadixKnobs> = std::sync::OnceLock::new();
    *KNOBS.get_or_init(|| {
        let read = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<usize>().ok());
        RadixKnobs {
            strided: read(STRIDED_LOG_RADIX_ENV).map(|v| v as u32),
            contiguous: read(CONTIGUOUS_LOG_RADIX_ENV).map(|v| v as u32),
            small_launch_points: read(SMALL_LAUNCH_POINTS_ENV).unwrap_or(DEFAULT_SMALL_LAUNCH_POINTS),
            single_launch_points: read(SINGLE_LAUNCH_POINTS_ENV).unwrap_or(DEFAULT_SINGLE_LAUNCH_POINTS),
            medium_launch_points: read(MEDIUM_LAUNCH_POINTS_ENV).unwrap_or(DEFAULT_MEDIUM_LAUNCH_POINTS),
            short_strided_launch_points: read(SHORT_STRIDED_LAUNCH_POINTS_ENV)
                .unwrap_or(DEFAULT_SHORT_STRIDED_LAUNCH_POINTS),
            medium_contiguous_launch_points: read(MEDIUM_CONTIGUOUS_LAUNCH_POINTS_ENV)
                .unwrap_or(DEFAULT_MEDIUM_CONTIGUOUS_LAUNCH_POINTS),
            mul_add_medium_launch_points: read(MUL_ADD_MEDIUM_LAUNCH_POINTS_ENV)
                .unwrap_or(DEFAULT_MUL_ADD_MEDIUM_LAUNCH_POINTS),
            medium_strided: read_pair(MEDIUM_STRIDED_ENV).unwrap_or(DEFAULT_MEDIUM_STRIDED),
            medium_contiguous: read_pair(MEDIUM_CONTIGUOUS_ENV).unwrap_or(DEFAULT_MEDIUM_CONTIGUOUS),
        }
    })
}

impl NttSchedule {
    /// The schedule of `2^log_n` (read once per [`GpuContext`]: see [`SINGLE_PASS_ENV`]).
    ///
    /// At `2^15` and `2^16` the contiguous pass takes 9 of the stages: the strided pass, whose
    /// radix-16 blocks hold few warps, has fewer, and the contiguous one, which hides its latency
    /// better, more. H100, same call (`POLY_CUDA_NTT_SPLIT` against the 8 x 7 and 8 x 8 splits
    /// before): every kernel of `bgv_bench --sets 32768,65536` 1.9% less in all; BGV Mul+Relin
    /// at 2^16 514.8-520.1 -> 508.6-511.1 us, DecryptResident 61.0-64.5 -> 59.5-61.4 us; BFV
    /// Mul+Relin at `phantom-32768` 512-523 -> 501-503 us
    /// (docs/perf/2026-11-25-h100-swizzle-splits.md).
    pub(crate) fn for_log_degree(log_n: u32) -> Result<Self> {
        let single_max = std::env::var(SINGLE_PASS_ENV).ok().and_then(|v| v.parse::<u32>().ok()).unwrap_or(0);
        if let Some((strided, contiguous)) = split_knob(log_n).filter(|_| log_n > single_max) {
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

/// The split [`SPLIT_ENV`] gives `2^log_n`, if any.
pub(super) fn split_knob(log_n: u32) -> Option<(u32, u32)> {
    parse_split(&std::env::var(SPLIT_ENV).ok()?, log_n)
}

/// The `(strided, contiguous)` entry for `log_n` of a [`SPLIT_ENV`] value, if it is valid.
pub(super) fn parse_split(value: &str, log_n: u32) -> Option<(u32, u32)> {
    value.split(',').find_map(|entry| {
        let (degree, pair) = entry.trim().split_once(':')?;
        let (strided, contiguous) = pair.split_once('x')?;
        let (degree, strided, contiguous) =
            (degree.parse::<u32>().ok()?, strided.parse::<u32>().ok()?, contiguous.parse::<u32>().ok()?);
        (degree == log_n
            && (5..=8).contains(&strided)
            && (5..=9).contains(&contiguous)
            && strided + contiguous == log_n)
            .then_some((strided, contiguous))
    })
}

/// `(log2 points per thread, columns per block)` of a pass of `2^log_m` points in a launch
/// of `points` points. Radix 4 for the contiguous pass of small launches (latency-bound: more
/// threads, shorter chains), the medium shapes for medium launches, radix 4 for strided passes
/// of at most 64 points in launches of more than [`SHORT_STRIDED_MIN_POINTS`] and up to
/// [`DEFAULT_SHORT_STRIDED_LAUNCH_POINTS`], else radix 8, or 16 for
/// strided passes of more than 64 points (fewer shared-memory round trips; H100, N = 2^16 x
/// 32: 43.8 us forward against 44.2 with radix 8); the knobs override where a kernel exists.
/// `function`: the multiply-add pass has a medium bound of its own.
pub(super) fn pass_shape(function: PassFunction, kind: PassKind, log_m: u32, points: usize) -> (u32, u32) {
    let knobs = radix_knobs();
    let default_columns = match kind {
        PassKind::Strided => STRIDED_COLUMNS,
        PassKind::Contiguous => CONTIGUOUS_BLOCK_WORDS >> log_m,
    };
    let knob = match kind {
        PassKind::Strided => knobs.strided,
        PassKind::Contiguous => knobs.contiguous,
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
pub(super) fn single_launch(log_n: u32, grid_y: u32) -> bool {
    log_n <= SINGLE_LAUNCH_MAX_LOG_N && ((grid_y as usize) << log_n) <= radix_knobs().single_launch_points
}

/// One two-pass pass: its kernel and launch shape.
pub(super) fn pass_launch(
    function: PassFunction,
    kind: PassKind,
    n: u32,
    log_m: u32,
    grid_y: u32,
    first: bool,
) -> Result<NttPass> {
    // The two-pass kernels leave the stage-0 scale out of their contiguous inverse passes
    // (kernels/ntt.cu, CAN_SCALE): such a pass must not cover the whole transform.
    if kind == PassKind::Contiguous && (1u64 << log_m) >= u64::from(n) {
        return Err(GpuError::Unsupported {
            what: format!("a two-pass transform of 2^{log_m} points whose contiguous pass covers all of them"),
        });
    }
    let points = n as usize * grid_y as usize;
    let (log_radix, columns) = pass_shape(function, kind, log_m, points);
    let found = find_pass_kernel(kind, log_m, log_radix, columns)
        .and_then(|index| PASS_KERNELS.get(index)?.names.get(function).map(|name| (index, name)));
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
    Ok(NttPass { name, table: KernelTable::Pass, index, function, config, first })
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
/// inverse runs them in the opposite order). The inverse of a product runs the product
/// variant of its first kernel.
pub(super) fn ntt_passes(
    transform: NttTransform,
    schedule: &NttSchedule,
    log_n: u32,
    grid_y: u32,
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
        NttSchedule::TwoPass { .. } if single_launch(log_n, grid_y) => single(log_n),
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
            let first = pass_launch(first_function, first_kind, n, first_log_m, grid_y, true)?;
            let later = pass_launch(later_function, later_kind, n, later_log_m, grid_y, false)?;
            Ok(vec![first, later])
        }
    }
}
