//! Kernel launches on limb-major device buffers `[poly][limb][N]` of one [`GpuContext`].
//! Callers check lengths and contexts; these functions only queue work.

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, LaunchConfig};

use poly::PolyError;

use crate::context::GpuContext;
use crate::error::{GpuError, Result};
use crate::kernel::{Kernel, LoadedModule, MAX_GRID_Y, address, address_mut, linear_config};

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
/// docs/performance.md).
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
/// 32.5 us at 2^16 x 32 (docs/performance.md).
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
/// 2^19 points (docs/performance.md).
pub const DEFAULT_SHORT_STRIDED_LAUNCH_POINTS: usize = 1 << 19;
/// The radix-4 strided passes above take launches of more than this many points only: below,
/// at 2^12 over 9-17 limbs, BFV's `phantom-4096` Mul+Relin measured slower with them (66.9 /
/// 74.9 us without, 77.6 / 80.3 with, HPS, two processes each).
pub const SHORT_STRIDED_MIN_POINTS: usize = 1 << 18;
const DEFAULT_MEDIUM_STRIDED: (u32, u32) = (2, 8);
const DEFAULT_MEDIUM_CONTIGUOUS: (u32, u32) = (2, 512);

/// A knob of the form `<a>x<b>`.
fn read_pair(name: &str) -> Option<(u32, u32)> {
    let value = std::env::var(name).ok()?;
    let (a, b) = value.split_once('x')?;
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}

/// The radix knobs, read once per process.
#[derive(Debug, Clone, Copy)]
struct RadixKnobs {
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

fn radix_knobs() -> RadixKnobs {
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
    /// (docs/performance.md).
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
fn split_knob(log_n: u32) -> Option<(u32, u32)> {
    parse_split(&std::env::var(SPLIT_ENV).ok()?, log_n)
}

/// The `(strided, contiguous)` entry for `log_n` of a [`SPLIT_ENV`] value, if it is valid.
fn parse_split(value: &str, log_n: u32) -> Option<(u32, u32)> {
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

// Geometry constants mirrored from kernels/ntt.cu.
const STRIDED_COLUMNS: u32 = 16;
const CONTIGUOUS_BLOCK_WORDS: u32 = 1024;
/// Points per thread (log) of the single-block kernels.
const SINGLE_LOG_RADIX: u32 = 3;

/// The two kinds of pass of a two-pass transform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PassKind {
    Strided,
    Contiguous,
}

/// The names of one kernel of `kernels/ntt.cu` in its four functions.
#[derive(Debug, Clone, Copy)]
struct FunctionNames {
    forward: &'static str,
    inverse: &'static str,
    /// The inverse pass that multiplies by a factor first (contiguous and single-block passes:
    /// they come first in the inverse).
    inverse_product: Option<&'static str>,
    /// The inverse pass that loads `addend + source * factor` (the same passes).
    inverse_mul_add: Option<&'static str>,
    /// The first inverse pass reading another buffer (out of place; the same passes).
    inverse_from: Option<&'static str>,
    /// The first forward pass leaving out the fused inner product's own limbs (strided).
    forward_skip: Option<&'static str>,
    /// The forward pass that loads the ModUp of one-prime digits (strided and single-block
    /// passes: they come first in the forward).
    forward_extend: Option<&'static str>,
    /// The last forward pass storing through ModDown's epilogue (contiguous passes).
    forward_mod_down: Option<&'static str>,
}

impl FunctionNames {
    fn get(&self, function: PassFunction) -> Option<&'static str> {
        match function {
            PassFunction::Forward => Some(self.forward),
            PassFunction::Inverse => Some(self.inverse),
            PassFunction::InverseProduct => self.inverse_product,
            PassFunction::InverseMulAdd => self.inverse_mul_add,
            PassFunction::InverseFrom => self.inverse_from,
            PassFunction::ForwardSkip => self.forward_skip,
            PassFunction::ForwardExtend => self.forward_extend,
            PassFunction::ForwardModDown => self.forward_mod_down,
        }
    }
}

/// One two-pass kernel of `kernels/ntt.cu` in its three functions.
#[derive(Debug, Clone, Copy)]
struct PassKernel {
    kind: PassKind,
    log_m: u32,
    log_radix: u32,
    /// Sub-transforms per block: [`STRIDED_COLUMNS`] or fewer (strided passes), or
    /// [`CONTIGUOUS_BLOCK_WORDS`] points' worth or fewer (contiguous passes).
    columns: u32,
    names: FunctionNames,
}

/// The [`PassKernel`] of a strided pass of `2^m` points, `2^r` per thread (names as exported),
/// with [`STRIDED_COLUMNS`] or `c` columns per block (kernel names ending in `_c<c>`).
macro_rules! strided_kernel {
    ($m:literal, $r:literal) => {
        strided_kernel!($m, $r, 16, "")
    };
    ($m:literal, $r:literal, $c:literal, $suffix:literal) => {
        PassKernel {
            kind: PassKind::Strided,
            log_m: $m,
            log_radix: $r,
            columns: $c,
            names: FunctionNames {
                forward: concat!("ntt_fwd_strided_", $m, "_lr", $r, $suffix),
                inverse: concat!("ntt_inv_strided_", $m, "_lr", $r, $suffix),
                inverse_product: None,
                inverse_mul_add: None,
                inverse_from: None,
                forward_skip: Some(concat!("ntt_fwd_skip_strided_", $m, "_lr", $r, $suffix)),
                forward_extend: Some(concat!("ntt_fwd_extend_strided_", $m, "_lr", $r, $suffix)),
                forward_mod_down: None,
            },
        }
    };
}

/// The [`PassKernel`] of a contiguous pass of `2^m` points, `2^r` per thread, with
/// [`CONTIGUOUS_BLOCK_WORDS`] or `w` points per block (kernel names ending in `_w<w>`).
macro_rules! contiguous_kernel {
    ($m:literal, $r:literal) => {
        contiguous_kernel!($m, $r, 1024, "")
    };
    ($m:literal, $r:literal, $w:literal, $suffix:literal) => {
        PassKernel {
            kind: PassKind::Contiguous,
            log_m: $m,
            log_radix: $r,
            columns: $w >> $m,
            names: FunctionNames {
                forward: concat!("ntt_fwd_contiguous_", $m, "_lr", $r, $suffix),
                inverse: concat!("ntt_inv_contiguous_", $m, "_lr", $r, $suffix),
                inverse_product: Some(concat!("ntt_inv_product_contiguous_", $m, "_lr", $r, $suffix)),
                inverse_mul_add: Some(concat!("ntt_inv_mul_add_contiguous_", $m, "_lr", $r, $suffix)),
                inverse_from: Some(concat!("ntt_inv_from_contiguous_", $m, "_lr", $r, $suffix)),
                forward_skip: None,
                forward_extend: None,
                forward_mod_down: Some(concat!("ntt_fwd_mod_down_contiguous_", $m, "_lr", $r, $suffix)),
            },
        }
    };
}

/// Every two-pass kernel of `kernels/ntt.cu`.
const PASS_KERNELS: &[PassKernel] = &[
    strided_kernel!(5, 2),
    strided_kernel!(6, 2),
    strided_kernel!(5, 3),
    strided_kernel!(6, 3),
    strided_kernel!(7, 3),
    strided_kernel!(8, 3),
    strided_kernel!(7, 4),
    strided_kernel!(8, 4),
    strided_kernel!(7, 2, 8, "_c8"),
    strided_kernel!(8, 2, 8, "_c8"),
    contiguous_kernel!(5, 2),
    contiguous_kernel!(6, 2),
    contiguous_kernel!(5, 3),
    contiguous_kernel!(6, 3),
    contiguous_kernel!(7, 3),
    contiguous_kernel!(8, 3),
    contiguous_kernel!(9, 3),
    contiguous_kernel!(7, 2, 512, "_w512"),
    contiguous_kernel!(8, 2, 512, "_w512"),
    contiguous_kernel!(9, 2, 512, "_w512"),
];

/// The [`FunctionNames`] of the single-block kernel of `2^log_n` points.
macro_rules! single_kernel {
    ($log_n:literal) => {
        FunctionNames {
            forward: concat!("ntt_fwd_single_", $log_n),
            inverse: concat!("ntt_inv_single_", $log_n),
            inverse_product: Some(concat!("ntt_inv_product_single_", $log_n)),
            inverse_mul_add: Some(concat!("ntt_inv_mul_add_single_", $log_n)),
            inverse_from: Some(concat!("ntt_inv_from_single_", $log_n)),
            forward_skip: None,
            forward_extend: Some(concat!("ntt_fwd_extend_single_", $log_n)),
            forward_mod_down: None,
        }
    };
}

/// The single-block kernels of `kernels/ntt.cu`, for `N = 2^10 ..= 2^12` in order.
const SINGLE_KERNELS: [FunctionNames; 3] = [single_kernel!(10), single_kernel!(11), single_kernel!(12)];
/// `log2(N)` of `SINGLE_KERNELS[0]`.
const SINGLE_MIN_LOG_N: u32 = 10;

/// One kernel of `kernels/ntt.cu` in its four functions, loaded.
#[derive(Debug)]
struct Functions {
    forward: Kernel,
    inverse: Kernel,
    inverse_product: Option<Kernel>,
    inverse_mul_add: Option<Kernel>,
    inverse_from: Option<Kernel>,
    forward_skip: Option<Kernel>,
    forward_extend: Option<Kernel>,
    forward_mod_down: Option<Kernel>,
}

impl Functions {
    fn load(module: &LoadedModule, names: &FunctionNames) -> Result<Self> {
        Ok(Self {
            forward: module.kernel(names.forward)?,
            inverse: module.kernel(names.inverse)?,
            inverse_product: names.inverse_product.map(|name| module.kernel(name)).transpose()?,
            inverse_mul_add: names.inverse_mul_add.map(|name| module.kernel(name)).transpose()?,
            inverse_from: names.inverse_from.map(|name| module.kernel(name)).transpose()?,
            forward_skip: names.forward_skip.map(|name| module.kernel(name)).transpose()?,
            forward_extend: names.forward_extend.map(|name| module.kernel(name)).transpose()?,
            forward_mod_down: names.forward_mod_down.map(|name| module.kernel(name)).transpose()?,
        })
    }

    fn get(&self, function: PassFunction) -> Option<&Kernel> {
        match function {
            PassFunction::Forward => Some(&self.forward),
            PassFunction::Inverse => Some(&self.inverse),
            PassFunction::InverseProduct => self.inverse_product.as_ref(),
            PassFunction::InverseMulAdd => self.inverse_mul_add.as_ref(),
            PassFunction::InverseFrom => self.inverse_from.as_ref(),
            PassFunction::ForwardSkip => self.forward_skip.as_ref(),
            PassFunction::ForwardExtend => self.forward_extend.as_ref(),
            PassFunction::ForwardModDown => self.forward_mod_down.as_ref(),
        }
    }
}

/// Every kernel of `kernels/ntt.cu`, in the order of [`PASS_KERNELS`] and [`SINGLE_KERNELS`]
/// (an [`NttPass`] names its kernel by that position).
#[derive(Debug)]
pub(crate) struct NttKernels {
    passes: Vec<Functions>,
    single: Vec<Functions>,
    /// `ntt_fwd_ip_contiguous_<m>_lr3` by `m` (see [`FORWARD_IP_LOG_M`]).
    forward_ip: Vec<(u32, Kernel)>,
    /// `ntt_fwd_ip_split_contiguous_<m>_lr3` by `m`: the same with own limbs and a special
    /// output ([`InnerProductKeys::own`], [`InnerProductKeys::special`]).
    forward_ip_split: Vec<(u32, Kernel)>,
    /// The last inverse pass fused with the centered lift modulo `t`, on devices with thread
    /// block clusters (compute capability 9.0 and up); `None` elsewhere.
    lift: Option<LiftKernels>,
}

/// `ntt_inv_lift_strided_<m>_lr3` (kernels/ntt.cu) prepared for cluster launches: each with
/// the dynamic shared memory it may take, and the largest cluster every one of them allows.
#[derive(Debug)]
struct LiftKernels {
    /// `(m, kernel, dynamic shared-memory bytes allowed)`, as [`LIFT_KERNELS`].
    kernels: Vec<(u32, Kernel, u32)>,
    max_cluster: u32,
}

/// The strided last passes fused with the centered lift: `(log2` of their points, name). They
/// are those of `N <= 2^12` ([`LIFT_MAX_LOG_N`]).
const LIFT_KERNELS: [(u32, &str); 2] = [(5, "ntt_inv_lift_strided_5_lr3"), (6, "ntt_inv_lift_strided_6_lr3")];
/// Largest `log2 N` of the fused lift. H100, DecryptResident: at 2^12 6.0 us of kernels against
/// 7.2 for the strided pass and the separate reduction; at 2^14 10.7 against 11.4, no faster in
/// the benchmark; at 2^15 and 2^16 slower (docs/performance.md).
const LIFT_MAX_LOG_N: u32 = 12;
/// `log2` of the points per thread of the fused lift passes.
const LIFT_LOG_RADIX: u32 = 3;
/// Largest cluster of the fused lift: 16 blocks (H100's non-portable limit) where the driver
/// allows it, else the portable 8.
const LIFT_MAX_CLUSTER: u32 = 16;
/// Smallest cluster of the fused lift (blocks past the last limb only lift): the portable
/// limit, at which every block's threads lift one coefficient each.
const LIFT_MIN_CLUSTER: u32 = 8;
/// Environment knob: the largest cluster of the fused lift in place of [`LIFT_MAX_CLUSTER`]
/// (0 turns the fused lift off; for A/B runs); read when a device opens.
pub const LIFT_MAX_CLUSTER_ENV: &str = "HEGPU_LIFT_MAX_CLUSTER";

impl LiftKernels {
    /// The lift kernels of `module`, prepared (larger dynamic shared memory, clusters above 8
    /// blocks), or `None` on devices without clusters, with the knob at 0, or where the
    /// driver refuses the attributes.
    fn load(context: &Arc<CudaContext>, module: &LoadedModule) -> Result<Option<Self>> {
        use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute};
        let knob = std::env::var(LIFT_MAX_CLUSTER_ENV).ok().and_then(|v| v.parse::<u32>().ok());
        let wanted = knob.unwrap_or(LIFT_MAX_CLUSTER).min(LIFT_MAX_CLUSTER);
        let major = context
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
            .map_err(|e| GpuError::driver("cuDeviceGetAttribute", e))?;
        if major < 9 || wanted == 0 {
            return Ok(None);
        }
        let Ok(optin) = context.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
        else {
            return Ok(None);
        };
        let mut max_cluster = wanted;
        let mut kernels = Vec::with_capacity(LIFT_KERNELS.len());
        for (m, name) in LIFT_KERNELS {
            let kernel = module.kernel(name)?;
            let function = kernel.function();
            let Ok(static_bytes) = function.get_attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
            else {
                return Ok(None);
            };
            let dynamic = optin.saturating_sub(static_bytes).max(0);
            if function
                .set_attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, dynamic)
                .is_err()
            {
                return Ok(None);
            }
            if max_cluster > 8
                && function
                    .set_attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1)
                    .is_err()
            {
                max_cluster = 8;
            }
            kernels.push((m, kernel, dynamic as u32));
        }
        Ok(Some(Self { kernels, max_cluster }))
    }
}

/// The contiguous passes (`log2` of their points) that exist fused with key switching's
/// inner product (`ntt_fwd_ip_contiguous_<m>_lr3` in kernels/ntt.cu, radix 8).
const FORWARD_IP_LOG_M: [u32; 5] = [5, 6, 7, 8, 9];
/// Their names, in the order of [`FORWARD_IP_LOG_M`].
const FORWARD_IP_NAMES: [&str; 5] = [
    "ntt_fwd_ip_contiguous_5_lr3",
    "ntt_fwd_ip_contiguous_6_lr3",
    "ntt_fwd_ip_contiguous_7_lr3",
    "ntt_fwd_ip_contiguous_8_lr3",
    "ntt_fwd_ip_contiguous_9_lr3",
];
/// Their `_split` variants, in the same order.
const FORWARD_IP_SPLIT_NAMES: [&str; 5] = [
    "ntt_fwd_ip_split_contiguous_5_lr3",
    "ntt_fwd_ip_split_contiguous_6_lr3",
    "ntt_fwd_ip_split_contiguous_7_lr3",
    "ntt_fwd_ip_split_contiguous_8_lr3",
    "ntt_fwd_ip_split_contiguous_9_lr3",
];
/// `log2` of the points per thread of the fused passes.
const FORWARD_IP_LOG_RADIX: u32 = 3;
/// The fewest blocks (`N / 1024` per limb, one grid row per limb) for which the fused pass is
/// taken: with fewer, its grid leaves the GPU idle where the separate pass (one row per limb
/// and digit) does not. H100 A/B: BFV `phantom-16384` (8 limbs, 128 blocks) 3% slower fused,
/// `phantom-32768` (16 limbs, 512 blocks) Rotate 17% faster.
const FORWARD_IP_MIN_BLOCKS: usize = 256;
/// Environment knob: the fewest blocks for the fused pass in place of
/// [`FORWARD_IP_MIN_BLOCKS`] (for A/B runs); read once per process.
pub const FORWARD_IP_MIN_BLOCKS_ENV: &str = "HEGPU_FORWARD_IP_MIN_BLOCKS";

/// [`FORWARD_IP_MIN_BLOCKS`], or the knob's value.
fn forward_ip_min_blocks() -> usize {
    static KNOB: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *KNOB.get_or_init(|| {
        std::env::var(FORWARD_IP_MIN_BLOCKS_ENV).ok().and_then(|v| v.parse().ok()).unwrap_or(FORWARD_IP_MIN_BLOCKS)
    })
}
/// `IP_MAX_DIGITS` of kernels/ntt.cu: key digits per fused launch.
pub const FORWARD_IP_MAX_DIGITS: usize = 64;

impl NttKernels {
    pub(crate) fn load(context: &Arc<CudaContext>) -> Result<Self> {
        let module = LoadedModule::load(context, hegpu_kernels::NTT)?;
        Ok(Self {
            passes: PASS_KERNELS.iter().map(|k| Functions::load(&module, &k.names)).collect::<Result<_>>()?,
            single: SINGLE_KERNELS.iter().map(|names| Functions::load(&module, names)).collect::<Result<_>>()?,
            forward_ip: FORWARD_IP_LOG_M
                .iter()
                .zip(FORWARD_IP_NAMES)
                .map(|(&m, name)| Ok((m, module.kernel(name)?)))
                .collect::<Result<_>>()?,
            forward_ip_split: FORWARD_IP_LOG_M
                .iter()
                .zip(FORWARD_IP_SPLIT_NAMES)
                .map(|(&m, name)| Ok((m, module.kernel(name)?)))
                .collect::<Result<_>>()?,
            lift: LiftKernels::load(context, &module)?,
        })
    }

    /// The kernel of `pass`.
    fn get(&self, pass: &NttPass) -> Result<&Kernel> {
        let functions = match pass.table {
            KernelTable::Pass => self.passes.get(pass.index),
            KernelTable::Single => self.single.get(pass.index),
        };
        // Unreachable: passes are made from the tables these kernels were loaded from.
        functions
            .and_then(|f| f.get(pass.function))
            .ok_or_else(|| GpuError::Unsupported { what: format!("NTT kernel {}", pass.name) })
    }
}

/// The index in [`PASS_KERNELS`] of the kernel of this kind, size, radix and columns per block.
fn find_pass_kernel(kind: PassKind, log_m: u32, log_radix: u32, columns: u32) -> Option<usize> {
    PASS_KERNELS
        .iter()
        .position(|k| k.kind == kind && k.log_m == log_m && k.log_radix == log_radix && k.columns == columns)
}

fn pass_kernel_exists(kind: PassKind, log_m: u32, log_radix: u32, columns: u32) -> bool {
    find_pass_kernel(kind, log_m, log_radix, columns).is_some()
}

/// `(log2 points per thread, columns per block)` of a pass of `2^log_m` points in a launch
/// of `points` points. Radix 4 for the contiguous pass of small launches (latency-bound: more
/// threads, shorter chains), the medium shapes for medium launches, radix 4 for strided passes
/// of at most 64 points in launches of more than [`SHORT_STRIDED_MIN_POINTS`] and up to
/// [`DEFAULT_SHORT_STRIDED_LAUNCH_POINTS`], else radix 8, or 16 for
/// strided passes of more than 64 points (fewer shared-memory round trips; H100, N = 2^16 x
/// 32: 43.8 us forward against 44.2 with radix 8); the knobs override where a kernel exists.
/// `function`: the multiply-add pass has a medium bound of its own.
fn pass_shape(function: PassFunction, kind: PassKind, log_m: u32, points: usize) -> (u32, u32) {
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
fn single_launch(log_n: u32, grid_y: u32) -> bool {
    log_n <= SINGLE_LAUNCH_MAX_LOG_N && ((grid_y as usize) << log_n) <= radix_knobs().single_launch_points
}

/// One two-pass pass: its kernel and launch shape.
fn pass_launch(
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

fn total_limbs(context: &GpuContext, polys: usize) -> Result<u32> {
    let limbs = polys * context.num_limbs();
    if limbs == 0 || limbs > MAX_GRID_Y {
        return Err(GpuError::Unsupported {
            what: format!("a transform launch over {limbs} limbs (1..={MAX_GRID_Y} per launch)"),
        });
    }
    Ok(limbs as u32)
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

/// Which function of a pass kernel runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PassFunction {
    Forward,
    Inverse,
    /// The first inverse pass (contiguous or single-block), multiplying by a factor first.
    InverseProduct,
    /// The first inverse pass, loading `addend + source * factor`.
    InverseMulAdd,
    /// The first inverse pass, reading another buffer.
    InverseFrom,
    /// The first forward pass (strided), leaving out the digits' own limbs.
    ForwardSkip,
    /// The first forward pass (strided or single-block), loading one-prime digits' ModUp.
    ForwardExtend,
    /// The last forward pass (contiguous), storing through ModDown's epilogue.
    ForwardModDown,
}

/// Which kernel table an [`NttPass`] indexes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KernelTable {
    /// [`PASS_KERNELS`].
    Pass,
    /// [`SINGLE_KERNELS`].
    Single,
}

/// One kernel launch of a transform.
#[derive(Debug, Clone, Copy)]
struct NttPass {
    /// The kernel's name (for errors and tests).
    name: &'static str,
    /// Where the kernel is: `function` of entry `index` of `table` ([`NttKernels::get`]).
    table: KernelTable,
    index: usize,
    function: PassFunction,
    config: LaunchConfig,
    /// The transform's first pass: it reads the forward source or takes the inverse's product.
    first: bool,
}

/// The kernels of one transform and their launch shapes, in launch order: one single-block
/// kernel (small N, or small launches), or the strided then contiguous pass (forward; the
/// inverse runs them in the opposite order). The inverse of a product runs the product
/// variant of its first kernel.
fn ntt_passes(transform: NttTransform, schedule: &NttSchedule, log_n: u32, grid_y: u32) -> Result<Vec<NttPass>> {
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

/// Forward NTT, in place, of `polys` consecutive polynomials in `data` (canonical in, canonical
/// bit-reversed evaluations out, as `poly::ntt::NttPlan::forward_inplace`).
pub(crate) fn ntt_forward(context: &GpuContext, data: &mut CudaSlice<u64>, polys: usize) -> Result<()> {
    launch_forward(context, data, ForwardInput::InPlace, polys)
}

/// Forward NTT of `polys` polynomials into `data` whose inputs are the ModUp of one-prime
/// digits (the first pass loads them; see `forward_pass` with EXTEND in kernels/ntt.cu):
/// polynomial `t` is limb `first_source + t` of `source` (a polynomial over the context's
/// first `source_limbs` primes) extended to every limb of `context`, centered when `centered`.
/// The caller checks `first_source + polys <= source_limbs <= L`, that `source`'s primes are
/// the context's first, and that `data` holds `polys * L * N` values.
pub(crate) fn ntt_forward_extending(
    context: &GpuContext,
    data: &mut CudaSlice<u64>,
    source: &CudaSlice<u64>,
    first_source: usize,
    centered: bool,
    polys: usize,
) -> Result<()> {
    launch_forward(context, data, ForwardInput::Extending { source, first_source, centered }, polys)
}

/// Forward NTT of `polys` consecutive polynomials of `source` into `destination` (the same
/// length; the caller checks): the first pass reads `source` and writes every value of
/// `destination`, later passes work in place there. `source` is untouched.
pub(crate) fn ntt_forward_from(
    context: &GpuContext,
    source: &CudaSlice<u64>,
    destination: &mut CudaSlice<u64>,
    polys: usize,
) -> Result<()> {
    launch_forward(context, destination, ForwardInput::From(source), polys)
}

/// What a forward transform's first pass reads.
#[derive(Clone, Copy)]
pub(crate) enum ForwardInput<'a> {
    /// `data` itself.
    InPlace,
    /// Another buffer of the same layout.
    From(&'a CudaSlice<u64>),
    /// One-prime digits of `source`, extended as they load ([`ntt_forward_extending`]).
    Extending { source: &'a CudaSlice<u64>, first_source: usize, centered: bool },
    /// `data` itself, the own limbs of key switching's digits left out ([`OwnLimbs`]; only
    /// before the fused inner product, which reads those limbs elsewhere).
    SkippingOwn(OwnLimbs),
}

fn launch_forward(
    context: &GpuContext,
    data: &mut CudaSlice<u64>,
    input: ForwardInput<'_>,
    polys: usize,
) -> Result<()> {
    let tables = context.ntt_tables()?;
    let log_n = context.degree().trailing_zeros();
    let grid_y = total_limbs(context, polys)?;
    for pass in ntt_passes(input.transform(), &tables.schedule, log_n, grid_y)? {
        launch_forward_pass(context, data, input, &pass, None)?;
    }
    Ok(())
}

impl ForwardInput<'_> {
    fn transform(&self) -> NttTransform {
        match self {
            ForwardInput::Extending { .. } => NttTransform::ForwardOfExtension,
            ForwardInput::SkippingOwn(_) => NttTransform::ForwardSkippingOwn,
            _ => NttTransform::Forward,
        }
    }
}

/// One pass of a forward transform of `data` whose first pass reads `input`; a
/// [`PassFunction::ForwardModDown`] pass takes `epilogue` (the caller vouches for its addresses).
fn launch_forward_pass(
    context: &GpuContext,
    data: &mut CudaSlice<u64>,
    input: ForwardInput<'_>,
    pass: &NttPass,
    epilogue: Option<&ModDownEpilogueParams>,
) -> Result<()> {
    let tables = context.ntt_tables()?;
    let device = context.device();
    let stream = device.stream();
    let (log_n_arg, limbs_arg) = (context.degree().trailing_zeros() as i32, context.num_limbs() as i32);
    let (first_arg, centered_arg) = match input {
        ForwardInput::Extending { first_source, centered, .. } => (first_source as i32, i32::from(centered)),
        _ => (0, 0),
    };
    let skip_args = match input {
        ForwardInput::SkippingOwn(own) => [own.first_digit as i32, own.digit_limbs as i32, own.limbs_q as i32],
        _ => [0; 3],
    };
    // The kernels read their input in place when `source` is null.
    let null_source: u64 = 0;
    let mut builder = device.kernels().ntt.get(pass)?.builder(stream);
    builder.arg(&mut *data);
    match input {
        ForwardInput::From(source) | ForwardInput::Extending { source, .. } if pass.first => builder.arg(source),
        _ => builder.arg(&null_source),
    };
    builder
        .arg(&tables.forward)
        .arg(&tables.forward_chunk_roots)
        .arg(context.moduli_table())
        .arg(&log_n_arg)
        .arg(&limbs_arg);
    if pass.first && input.transform() == NttTransform::ForwardOfExtension {
        builder.arg(&first_arg).arg(&centered_arg);
    }
    if pass.first && input.transform() == NttTransform::ForwardSkippingOwn {
        builder.arg(&skip_args[0]).arg(&skip_args[1]).arg(&skip_args[2]);
    }
    if pass.function == PassFunction::ForwardModDown {
        let epilogue =
            epilogue.ok_or_else(|| GpuError::Unsupported { what: "ModDown's pass without its epilogue".into() })?;
        builder.arg_pod(epilogue);
    }
    // SAFETY: argument list matches `ntt_fwd_*(data, source, table, chunk_roots, moduli,
    // log_n, limbs_per_poly)` in kernels/ntt.cu, and for an extending transform's first pass
    // `ntt_fwd_extend_*(..., first_source, centered)`; `data` (and `source` when given, a
    // distinct buffer: it is borrowed shared while `data` is borrowed mutably) hold
    // `polys * L * N` values (checked by the callers; an extending source the limbs
    // `first_source .. first_source + polys` of a polynomial over the context's first
    // primes), the table `L * N` pairs and the chunk roots `L * (N / M) * log M` words
    // (for the schedule's contiguous M). A ModDown pass takes `ntt_fwd_mod_down_*(...,
    // ModDownEpilogue)` last, by value, as mirrored by ModDownEpilogueParams; its addresses are
    // the caller's (ntt_forward_mod_down). A skipping first pass is
    // `ntt_fwd_skip_*(..., first_digit, digit_limbs, limbs_q)`: digit_limbs >= 1 (OwnLimbs).
    unsafe { builder.launch(pass.config) }?;
    Ok(())
}

/// Mirror of `ModDownEpilogue` in kernels/ntt.cu (device addresses as `u64`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
struct ModDownEpilogueParams {
    sums: u64,
    addend0: u64,
    addend1: u64,
    out0: u64,
    out1: u64,
    p_inv: u64,
    p_inv_shoup: u64,
    e_p_inv: u64,
    e_p_inv_shoup: u64,
    sums_poly_words: i64,
}

const _: () = assert!(size_of::<ModDownEpilogueParams>() == 10 * 8);

/// The last step of ModDown in the evaluation representation, as the forward transform of the
/// converted remainder `r` takes it in its last pass
/// ([`DevicePolyBatch::forward_mod_down`](crate::DevicePolyBatch::forward_mod_down)): for
/// polynomial `k` (0, 1) of the transform and limb `i`,
/// `out_k = addend_k + s_k P^-1 - F(r_k) (E P^-1) mod q_i` (`= addend_k + (s_k - E F(r_k)) P^-1`).
/// Device addresses: `sums` the first key-switching sum's limbs of `q` (the second
/// `sums_poly_words` words further, each polynomial limb-major over the transform's primes
/// first), `addends` (0 for none) and `outputs` polynomials over the transform's context,
/// `p_inv` and `e_p_inv` one word per limb each for `P^-1 mod q_i` and `E P^-1 mod q_i` (`E`
/// the error scale), each with a second array of their Shoup companions.
#[derive(Debug, Clone, Copy)]
pub struct ModDownTarget {
    pub sums: u64,
    pub sums_poly_words: usize,
    pub addends: [u64; 2],
    pub outputs: [u64; 2],
    /// `[P^-1 mod q_i, Shoup companions]`.
    pub p_inv: [u64; 2],
    /// `[E P^-1 mod q_i, Shoup companions]`.
    pub e_p_inv: [u64; 2],
}

/// Whether [`ntt_forward_mod_down`] runs `polys` polynomials of `context`: two of them, over a
/// two-pass schedule that this launch does not run as single-block passes.
pub(crate) fn forward_mod_down_supported(context: &GpuContext, polys: usize) -> bool {
    let Ok(tables) = context.ntt_tables() else { return false };
    let Ok(grid_y) = total_limbs(context, polys) else { return false };
    polys == 2
        && matches!(tables.schedule, NttSchedule::TwoPass { .. })
        && !single_launch(context.degree().trailing_zeros(), grid_y)
}

/// The forward transform of the two polynomials in `data` (canonical coefficients; scratch
/// afterwards) whose last pass writes ModDown's outputs ([`ModDownTarget`]) instead of the
/// transform. Errors with [`GpuError::Unsupported`] where [`forward_mod_down_supported`] is
/// false (nothing queued).
///
/// # Safety
/// The target's addresses are device memory of this context's device, live until the queued
/// work has run: `sums` two polynomials over at least the context's primes (`sums_poly_words`
/// apart), each addend (or 0) and output one polynomial over the context, `p_inv` and
/// `e_p_inv` (with their companions) one word per limb; the outputs overlap nothing else; `data`
/// holds two polynomials.
pub(crate) unsafe fn ntt_forward_mod_down(
    context: &GpuContext,
    data: &mut CudaSlice<u64>,
    target: &ModDownTarget,
) -> Result<()> {
    if !forward_mod_down_supported(context, 2) {
        return Err(GpuError::Unsupported { what: "ModDown's epilogue on this transform".to_string() });
    }
    let tables = context.ntt_tables()?;
    let log_n = context.degree().trailing_zeros();
    let grid_y = total_limbs(context, 2)?;
    let passes = ntt_passes(NttTransform::ForwardModDown, &tables.schedule, log_n, grid_y)?;
    let epilogue = ModDownEpilogueParams {
        sums: target.sums,
        addend0: target.addends[0],
        addend1: target.addends[1],
        out0: target.outputs[0],
        out1: target.outputs[1],
        p_inv: target.p_inv[0],
        p_inv_shoup: target.p_inv[1],
        e_p_inv: target.e_p_inv[0],
        e_p_inv_shoup: target.e_p_inv[1],
        sums_poly_words: target.sums_poly_words as i64,
    };
    for pass in passes {
        launch_forward_pass(context, data, ForwardInput::InPlace, &pass, Some(&epilogue))?;
    }
    Ok(())
}

/// Mirror of `FwdIpParams` in kernels/ntt.cu (device addresses as `u64`).
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct FwdIpParams {
    data: u64,
    output: u64,
    table: u64,
    chunk_roots: u64,
    moduli: u64,
    key_b: [u64; FORWARD_IP_MAX_DIGITS],
    key_a: [u64; FORWARD_IP_MAX_DIGITS],
    log_n: i32,
    limbs: i32,
    digits: i32,
    accumulate: i32,
    own_source: u64,
    first_digit: i32,
    digit_limbs: i32,
    limbs_q: i32,
    special_from: i32,
    special: u64,
}

const _: () = assert!(size_of::<FwdIpParams>() == (7 + 2 * FORWARD_IP_MAX_DIGITS) * 8 + 8 * 4);

/// Key switching's inner product as the fused transforms take it
/// ([`DevicePolyBatch::forward_extending_limbs_inner_product`](crate::DevicePolyBatch::forward_extending_limbs_inner_product)):
/// the key digits' `(b, a)` device addresses (one pair per polynomial of the transform, each a polynomial over
/// the context), the output's address (two polynomials over the context: the `b` sum, then the
/// `a` sum) and whether to add the output's current values.
#[derive(Debug, Clone, Copy)]
pub struct InnerProductKeys<'a> {
    pub keys: &'a [(u64, u64)],
    pub output: u64,
    pub accumulate: bool,
    /// The digits' own limbs, read in the evaluation representation instead of transformed
    /// (hybrid key switching of an input whose evaluations are at hand); `None`: every limb
    /// is transformed.
    pub own: Option<OwnLimbs>,
    /// `(address, first)`: the limbs from `first` on (the special primes) of both sums go to a
    /// separate buffer at `address`, `[2][L - first][N]` (the `b` sum's, then the `a` sum's),
    /// and those rows of `output` are neither read nor written; `None`: all in `output`.
    pub special: Option<(u64, usize)>,
}

/// The own limbs of key switching's digits (the ModUp of digit `d` keeps its limbs of `q`, so
/// their forward transform is the input's): polynomial `t` of a fused transform is digit
/// `first_digit + t`, whose own limbs are the limbs `i < limbs_q` with
/// `i / digit_limbs == first_digit + t`, read from `source` (the device address of the input
/// over `q`, `limbs_q` limbs, evaluation representation) by the fused inner product; the
/// first pass leaves them out (their rows of the scratch buffer are never written).
#[derive(Debug, Clone, Copy)]
pub struct OwnLimbs {
    pub source: u64,
    pub first_digit: usize,
    pub digit_limbs: usize,
    pub limbs_q: usize,
}

/// Whether [`ntt_forward_inner_product`] runs `polys` polynomials of `context`: a two-pass
/// forward transform whose contiguous pass has a fused kernel, over enough limbs to fill the
/// GPU ([`FORWARD_IP_MIN_BLOCKS`]).
pub(crate) fn forward_inner_product_supported(context: &GpuContext, polys: usize) -> bool {
    let Ok(tables) = context.ntt_tables() else { return false };
    let log_n = context.degree().trailing_zeros();
    let Ok(grid_y) = total_limbs(context, polys) else { return false };
    match tables.schedule {
        NttSchedule::TwoPass { contiguous, .. } => {
            let blocks = (context.degree() >> 10) * context.num_limbs();
            !single_launch(log_n, grid_y) && FORWARD_IP_LOG_M.contains(&contiguous) && blocks >= forward_ip_min_blocks()
        }
        NttSchedule::Single { .. } => false,
    }
}

/// The forward transform of `polys` polynomials whose last pass forms key switching's inner
/// product instead of storing them: the first pass runs as [`launch_forward`]'s (reading
/// `input`, writing lazy values into `data`), then launches of `ntt_fwd_ip_contiguous_*` (up
/// to [`FORWARD_IP_MAX_DIGITS`] polynomials each, the later ones accumulating) finish each
/// polynomial and add its products with its key digit into the output. `data` is scratch
/// afterwards. Errors with [`GpuError::Unsupported`] where
/// [`forward_inner_product_supported`] is false (nothing queued).
///
/// # Safety
/// `keys` holds `polys` pairs of addresses of polynomials over `context` (device memory of this
/// context's device, live until the queued work has run) and `output` two such polynomials,
/// 16-byte aligned, not overlapping `data` or the keys; `data` holds `polys * L * N` values.
pub(crate) unsafe fn ntt_forward_inner_product(
    context: &GpuContext,
    data: &mut CudaSlice<u64>,
    input: ForwardInput<'_>,
    polys: usize,
    ip: InnerProductKeys<'_>,
) -> Result<()> {
    let own_fits = ip.own.is_none_or(|own| {
        own.digit_limbs >= 1 && own.limbs_q <= context.num_limbs() && own.source != 0 && polys <= MAX_GRID_Y
    }) && ip.special.is_none_or(|(address, first)| address != 0 && first <= context.num_limbs());
    if !forward_inner_product_supported(context, polys) || ip.keys.len() != polys || !own_fits {
        return Err(GpuError::Unsupported {
            what: format!(
                "a forward transform fused with the inner product ({polys} polynomials, {} key digits)",
                ip.keys.len()
            ),
        });
    }
    let tables = context.ntt_tables()?;
    let NttSchedule::TwoPass { contiguous, .. } = tables.schedule else {
        return Err(GpuError::Unsupported { what: "a fused inner product after a single-block transform".to_string() });
    };
    let device = context.device();
    let stream = device.stream();
    let log_n = context.degree().trailing_zeros();
    let limbs = context.num_limbs();
    let grid_y = total_limbs(context, polys)?;
    // Own limbs are skipped by the first pass of an in-place transform only (the fused digits
    // of key switching), and read by the fused pass.
    let (first_input, own) = match (input, ip.own) {
        (ForwardInput::InPlace, Some(own)) => (ForwardInput::SkippingOwn(own), Some(own)),
        (input, _) => (input, None),
    };
    let passes = ntt_passes(first_input.transform(), &tables.schedule, log_n, grid_y)?;
    let Some(first) = passes.first().filter(|pass| pass.first && passes.len() == 2) else {
        return Err(GpuError::Unsupported { what: "a fused inner product after a single-block transform".to_string() });
    };
    // The split kernels honour own limbs and the special output; the plain ones (fewer
    // registers) serve the rest.
    let ntt = &device.kernels().ntt;
    let kernels = if own.is_some() || ip.special.is_some() { &ntt.forward_ip_split } else { &ntt.forward_ip };
    let kernel = kernels
        .iter()
        .find_map(|(m, kernel)| (*m == contiguous).then_some(kernel))
        .ok_or_else(|| GpuError::Unsupported { what: format!("a fused inner product after 2^{contiguous} points") })?;
    launch_forward_pass(context, data, first_input, first, None)?;
    let (log_n_arg, limbs_arg) = (log_n as i32, limbs as i32);
    let moduli = context.moduli_table();
    let data_address = address(&*data, stream);
    let poly_bytes = (limbs << log_n) as u64 * 8;
    for (chunk_index, chunk) in ip.keys.chunks(FORWARD_IP_MAX_DIGITS).enumerate() {
        let first_poly = chunk_index * FORWARD_IP_MAX_DIGITS;
        let mut params = FwdIpParams {
            data: data_address + first_poly as u64 * poly_bytes,
            output: ip.output,
            table: address(&tables.forward, stream),
            chunk_roots: address(&tables.forward_chunk_roots, stream),
            moduli: address(moduli, stream),
            key_b: [0; FORWARD_IP_MAX_DIGITS],
            key_a: [0; FORWARD_IP_MAX_DIGITS],
            log_n: log_n_arg,
            limbs: limbs_arg,
            digits: chunk.len() as i32,
            accumulate: i32::from(ip.accumulate || chunk_index > 0),
            own_source: own.map_or(0, |own| own.source),
            first_digit: own.map_or(0, |own| (own.first_digit + first_poly) as i32),
            digit_limbs: own.map_or(1, |own| own.digit_limbs as i32),
            limbs_q: own.map_or(0, |own| own.limbs_q as i32),
            special_from: ip.special.map_or(0, |(_, first)| first as i32),
            special: ip.special.map_or(0, |(address, _)| address),
        };
        for (slot, &(b, a)) in chunk.iter().enumerate() {
            params.key_b[slot] = b;
            params.key_a[slot] = a;
        }
        let mut builder = kernel.builder(stream);
        builder.arg_pod(&params);
        let config = contiguous_config(
            1 << log_n,
            contiguous,
            FORWARD_IP_LOG_RADIX,
            CONTIGUOUS_BLOCK_WORDS >> contiguous,
            limbs as u32,
        );
        // SAFETY: matches `ntt_fwd_ip[_split]_contiguous_*(FwdIpParams)`: grid (N / 1024, L) over the
        // context's limbs, `data` the chunk's polynomials after the first pass (written above,
        // same stream), the context's forward table and chunk roots for its contiguous M, and
        // the caller's keys (one per polynomial of the chunk) and output (two polynomials).
        unsafe { builder.launch(config) }?;
    }
    Ok(())
}

/// Inverse NTT, in place, of `polys` consecutive polynomials (as
/// `poly::ntt::NttPlan::inverse_inplace`).
pub(crate) fn ntt_inverse(context: &GpuContext, data: &mut CudaSlice<u64>, polys: usize) -> Result<()> {
    launch_inverse(context, data, FirstLoad::Data, polys, None)
}

/// `data <- inverse(data * factor)`, in place, of `polys` consecutive polynomials, the product
/// element-wise (per limb and index, Barrett, canonical: as `ew_mul`), taken by the first
/// inverse pass as it loads. `factor` has the length of `data` (the caller checks).
pub(crate) fn ntt_inverse_of_product(
    context: &GpuContext,
    data: &mut CudaSlice<u64>,
    factor: &CudaSlice<u64>,
    polys: usize,
) -> Result<()> {
    launch_inverse(context, data, FirstLoad::Product { factor }, polys, None)
}

/// `data <- inverse(addend + source * factor)` of `polys` consecutive polynomials, the
/// operation element-wise (as a copy of `addend` after `ew_mul_add`), loaded by the first
/// inverse pass, which writes every value of `data` (so `data` may be uninitialized). All
/// four buffers have the same length (the caller checks); the three inputs are untouched.
pub(crate) fn ntt_inverse_of_mul_add(
    context: &GpuContext,
    data: &mut CudaSlice<u64>,
    source: &CudaSlice<u64>,
    factor: &CudaSlice<u64>,
    addend: &CudaSlice<u64>,
    polys: usize,
) -> Result<()> {
    launch_inverse(context, data, FirstLoad::MulAdd { source, factor, addend }, polys, None)
}

/// [`ntt_inverse_of_mul_add`] with `scale` (a `[limb]` table of `{N^-1 f, shoup, w_1 N^-1 f,
/// shoup}`, [`crate::InverseScale`], of this context's limbs; the caller checks) in place of
/// the context's own: each limb `i` of the outputs comes out times its factor `f_i`.
pub(crate) fn ntt_inverse_of_mul_add_scaled(
    context: &GpuContext,
    data: &mut CudaSlice<u64>,
    (source, factor, addend): (&CudaSlice<u64>, &CudaSlice<u64>, &CudaSlice<u64>),
    scale: &CudaSlice<u64>,
    polys: usize,
) -> Result<()> {
    launch_inverse(context, data, FirstLoad::MulAdd { source, factor, addend }, polys, Some(scale))
}

/// The operands of the centered lift modulo `t` ([`crate::CenteredLift`]) for one launch.
pub(crate) struct LiftOperands<'a> {
    /// `[limb]` `(q/q_i) mod t`.
    pub(crate) terms: &'a CudaSlice<u64>,
    /// `t`, `q mod t` and the factor the lifted values are multiplied by, as the last step
    /// takes them.
    pub(crate) finish: crate::centered_lift::LiftFinish,
    /// Where the `N` lifted words go: a device buffer's or mapped host memory's device address.
    pub(crate) out: u64,
}

/// Mirror of `LiftParams` in kernels/ntt.cu (device addresses as `u64`).
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct LiftParams {
    data: u64,
    out: u64,
    table: u64,
    scale: u64,
    moduli: u64,
    lift_terms: u64,
    finish: crate::centered_lift::LiftFinish,
    log_n: i32,
    limbs: i32,
}
const _: () = assert!(size_of::<LiftParams>() == 16 * 8 + 2 * 4);

/// How a context's inverse runs fused with the centered lift: the lift kernel, its cluster
/// size, its dynamic shared memory, and the two passes' sizes.
pub(crate) struct LiftPlan<'k> {
    kernel: &'k Kernel,
    cluster: u32,
    kept_bytes: u32,
    strided: u32,
    contiguous: u32,
}

/// The fused lift's plan over `context`, or `None` where that path does not exist: devices
/// without clusters (or with the knob at 0), DGT rings, single-pass schedules, `N > 2^12`.
/// (The clusters' shared memory, `ceil(L / C)` slots of `16 M` words per block, holds every
/// limb count a ring may have there: 128 limbs are 8 slots of 8 KiB; still checked.)
pub(crate) fn lift_plan(context: &GpuContext) -> Option<LiftPlan<'_>> {
    let lift_kernels = context.device().kernels().ntt.lift.as_ref()?;
    if context.degree().trailing_zeros() > LIFT_MAX_LOG_N {
        return None;
    }
    let NttSchedule::TwoPass { strided, contiguous } = context.ntt_tables().ok()?.schedule else {
        return None;
    };
    let (_, kernel, dynamic_limit) = lift_kernels.kernels.iter().find(|(m, _, _)| *m == strided)?;
    let limbs = u32::try_from(context.num_limbs()).ok()?;
    // At least LIFT_MIN_CLUSTER blocks, those past the last limb only lifting: with fewer
    // limbs the lift would run on a few blocks' threads.
    let cluster = limbs.max(LIFT_MIN_CLUSTER).min(lift_kernels.max_cluster).max(1);
    let kept_bytes = limbs.div_ceil(cluster) * (STRIDED_COLUMNS << strided) * 8;
    (kept_bytes <= *dynamic_limit).then_some(LiftPlan { kernel, cluster, kept_bytes, strided, contiguous })
}

/// `lift.out <- [x_c]_t * factor mod t` for `x = inverse(addend + source * factor_poly)` times
/// `scale`'s factors (`(q/q_i)^{-1}`), `x_c` its centered lift (kernels/include/centered_lift.cuh):
/// the first inverse pass (multiply-add) into `data`, then the last pass fused with the lift
/// in clusters of `plan.cluster` blocks (`ntt_inv_lift_strided_*`). `plan` is [`lift_plan`]'s
/// for `context`; the caller checks the lengths (`data` and the inputs `L N` words, `scale`
/// and `lift.terms` of this context's limbs, `lift.out` `N` words).
pub(crate) fn ntt_inverse_of_mul_add_lifted(
    context: &GpuContext,
    plan: &LiftPlan<'_>,
    data: &mut CudaSlice<u64>,
    (source, factor, addend): (&CudaSlice<u64>, &CudaSlice<u64>, &CudaSlice<u64>),
    scale: &CudaSlice<u64>,
    lift: &LiftOperands<'_>,
) -> Result<()> {
    let tables = context.ntt_tables()?;
    let n = context.degree() as u32;
    let grid_y = total_limbs(context, 1)?;
    let first = pass_launch(PassFunction::InverseMulAdd, PassKind::Contiguous, n, plan.contiguous, grid_y, true)?;
    launch_inverse_pass(context, data, FirstLoad::MulAdd { source, factor, addend }, &first, Some(scale))?;
    let stream = context.device().stream();
    let params = LiftParams {
        data: address(&*data, stream),
        out: lift.out,
        table: address(&tables.inverse, stream),
        scale: address(scale, stream),
        moduli: address(context.moduli_table(), stream),
        lift_terms: address(lift.terms, stream),
        finish: lift.finish,
        log_n: n.trailing_zeros() as i32,
        limbs: grid_y as i32,
    };
    let config = LaunchConfig {
        shared_mem_bytes: plan.kept_bytes,
        ..strided_config(n, plan.strided, LIFT_LOG_RADIX, STRIDED_COLUMNS, plan.cluster)
    };
    // SAFETY: matches `ntt_inv_lift_strided_<strided>_lr3(LiftParams)`: grid (N / 16 M, C) in
    // clusters (1, C, 1) (block r transforms limbs r, r + C, ... and keeps them in
    // ceil(L / C) slots of 16 M words of dynamic shared memory: lift_plan's kept_bytes), `data`
    // the first pass's output just queued on this stream (L N words), the context's inverse
    // table and moduli, `scale` and `terms` of its L limbs, `out` N words (the caller's);
    // the last step's constants from LiftFinish::new (2 <= t < 2^60, q_mod_t and the factor
    // below t).
    unsafe { plan.kernel.launch_clustered(stream, config, (1, plan.cluster, 1), &params) }
}

/// `data <- inverse(source)` of `polys` consecutive polynomials: the first inverse pass reads
/// `source` (the same length; the caller checks) and writes every value of `data` (which may
/// be uninitialized); `source` is untouched.
pub(crate) fn ntt_inverse_from(
    context: &GpuContext,
    data: &mut CudaSlice<u64>,
    source: &CudaSlice<u64>,
    polys: usize,
) -> Result<()> {
    launch_inverse(context, data, FirstLoad::From { source }, polys, None)
}

/// What the first inverse pass loads.
#[derive(Clone, Copy)]
enum FirstLoad<'a> {
    /// `source` (out of place; `data` is only written).
    From { source: &'a CudaSlice<u64> },
    /// `data`, in place.
    Data,
    /// `data * factor`.
    Product { factor: &'a CudaSlice<u64> },
    /// `addend + source * factor` (`data` is only written).
    MulAdd { source: &'a CudaSlice<u64>, factor: &'a CudaSlice<u64>, addend: &'a CudaSlice<u64> },
}

fn launch_inverse(
    context: &GpuContext,
    data: &mut CudaSlice<u64>,
    load: FirstLoad<'_>,
    polys: usize,
    scale: Option<&CudaSlice<u64>>,
) -> Result<()> {
    let tables = context.ntt_tables()?;
    let log_n = context.degree().trailing_zeros();
    let grid_y = total_limbs(context, polys)?;
    let transform = match load {
        FirstLoad::Data => NttTransform::Inverse,
        FirstLoad::Product { .. } => NttTransform::InverseOfProduct,
        FirstLoad::MulAdd { .. } => NttTransform::InverseOfMulAdd,
        FirstLoad::From { .. } => NttTransform::InverseFrom,
    };
    for pass in ntt_passes(transform, &tables.schedule, log_n, grid_y)? {
        launch_inverse_pass(context, data, load, &pass, scale)?;
    }
    Ok(())
}

/// One pass of [`launch_inverse`] (also the first pass of [`ntt_inverse_of_mul_add_lifted`]).
fn launch_inverse_pass(
    context: &GpuContext,
    data: &mut CudaSlice<u64>,
    load: FirstLoad<'_>,
    pass: &NttPass,
    scale: Option<&CudaSlice<u64>>,
) -> Result<()> {
    let tables = context.ntt_tables()?;
    let device = context.device();
    let stream = device.stream();
    let (log_n_arg, limbs_arg) = (context.degree().trailing_zeros() as i32, context.num_limbs() as i32);
    let moduli = context.moduli_table();
    let mut builder = device.kernels().ntt.get(pass)?.builder(stream);
    builder.arg(&mut *data);
    match load {
        FirstLoad::Product { factor } if pass.first => {
            builder.arg(factor);
        }
        FirstLoad::MulAdd { source, factor, addend } if pass.first => {
            builder.arg(source).arg(factor).arg(addend);
        }
        FirstLoad::From { source } if pass.first => {
            builder.arg(source);
        }
        _ => {}
    }
    builder
        .arg(&tables.inverse)
        .arg(&tables.inverse_chunk_roots)
        .arg(scale.unwrap_or(&tables.inverse_scale))
        .arg(moduli)
        .arg(&log_n_arg)
        .arg(&limbs_arg);
    // SAFETY: argument list matches `ntt_inv_*(data, table, chunk_roots, scale, moduli,
    // log_n, limbs_per_poly)` in kernels/ntt.cu, for the first pass of a product
    // `ntt_inv_product_*(data, factor, ...)` and of a multiply-add
    // `ntt_inv_mul_add_*(data, source, factor, addend, ...)`, of an out-of-place inverse
    // `ntt_inv_from_*(data, source, ...)` (ntt_passes names exactly those kernels then); `scale`
    // is the context's table or a caller's InverseScale of the same limbs (4 words each); the
    // inputs, distinct buffers (shared borrows beside `data`'s
    // mutable one), have the length of `data` (see launch_forward for the others). The
    // multiply-add and out-of-place passes write every value of `data` before the later pass reads it.
    unsafe { builder.launch(pass.config) }?;
    Ok(())
}

/// The single-block pass of `2^log_n` points (the whole transform).
fn single_pass(function: PassFunction, log_n: u32, grid_y: u32) -> Result<NttPass> {
    let index = log_n.checked_sub(SINGLE_MIN_LOG_N).map(|i| i as usize);
    let name = index.and_then(|i| SINGLE_KERNELS.get(i)).and_then(|names| names.get(function));
    match (index, name) {
        (Some(index), Some(name)) => Ok(NttPass {
            name,
            table: KernelTable::Single,
            index,
            function,
            config: single_config(log_n, grid_y),
            first: true,
        }),
        _ => Err(GpuError::Unsupported { what: format!("NTT single-block pass ({function:?}) of 2^{log_n} points") }),
    }
}

fn single_config(log_n: u32, grid_y: u32) -> LaunchConfig {
    let log_radix = log_n.min(SINGLE_LOG_RADIX);
    LaunchConfig { grid_dim: (1, grid_y, 1), block_dim: (1 << (log_n - log_radix), 1, 1), shared_mem_bytes: 0 }
}

/// `columns` sub-transforms of `2^log_m` points per block, `2^log_radix` points per thread.
fn strided_config(n: u32, log_m: u32, log_radix: u32, columns: u32, grid_y: u32) -> LaunchConfig {
    let threads = (columns << log_m) >> log_radix;
    LaunchConfig { grid_dim: ((n >> log_m) / columns, grid_y, 1), block_dim: (threads, 1, 1), shared_mem_bytes: 0 }
}

/// `columns` sub-transforms of `2^log_m` points per block (at most
/// `CONTIGUOUS_BLOCK_WORDS` points), `2^log_radix` points per thread.
fn contiguous_config(n: u32, log_m: u32, log_radix: u32, columns: u32, grid_y: u32) -> LaunchConfig {
    let threads = (columns << log_m) >> log_radix;
    LaunchConfig { grid_dim: ((n >> log_m) / columns, grid_y, 1), block_dim: (threads, 1, 1), shared_mem_bytes: 0 }
}

crate::kernel_set! {
    /// The kernels of `kernels/elementwise.cu`.
    pub(crate) struct ElementwiseKernels(hegpu_kernels::ELEMENTWISE) {
        ew_add,
        ew_sub,
        ew_mul,
        ew_mul_add,
        ew_tensor,
        ew_gauss_mul,
        ew_gauss_mul_add,
        ew_neg,
        ew_scalar_mul,
        ew_automorphism,
        ew_automorphism_eval,
        ew_add_sub_many,
        ew_copy_many,
    }
}

/// `EW_MAX_MANY` of `kernels/elementwise.cu`: polynomial pairs per `ew_add_sub_many` launch.
pub(crate) const MAX_MANY: usize = 4;

/// Mirror of `ManyParams` in `kernels/elementwise.cu` (device addresses as `u64`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
struct ManyParams {
    out: [u64; MAX_MANY],
    a: [u64; MAX_MANY],
    b: [u64; MAX_MANY],
    moduli: u64,
    pairs: u64,
    log_n: i32,
    limbs_per_poly: i32,
    subtract: i32,
    unused: i32,
}

const _: () = assert!(size_of::<ManyParams>() == (3 * MAX_MANY + 2) * 8 + 4 * 4);

/// `out[k] <- a[k] +- b[k]` for every `k` (at most [`MAX_MANY`] polynomials of `context`, each
/// `poly_len` values), in one launch; `a` is `out` itself when `None` (in place). The caller
/// checks that every buffer belongs to `context` and holds `poly_len` values.
pub(crate) fn add_sub_many(
    context: &GpuContext,
    subtract: bool,
    out: &mut [&mut CudaSlice<u64>],
    a: Option<&[&CudaSlice<u64>]>,
    b: &[&CudaSlice<u64>],
) -> Result<()> {
    let count = out.len();
    if count == 0 {
        return Ok(());
    }
    if count > MAX_MANY || b.len() != count || a.is_some_and(|a| a.len() != count) {
        return Err(PolyError::LengthMismatch { expected: count.min(MAX_MANY), actual: b.len() }.into());
    }
    let device = context.device();
    let stream = device.stream();
    let pairs = (context.ring().poly_len() / 2) as u64;
    let mut params = ManyParams {
        moduli: address(context.moduli_table(), stream),
        pairs,
        log_n: context.degree().trailing_zeros() as i32,
        limbs_per_poly: context.num_limbs() as i32,
        subtract: i32::from(subtract),
        ..ManyParams::default()
    };
    for k in 0..count {
        params.out[k] = address_mut(&mut *out[k], stream);
        params.a[k] = match a {
            Some(a) => address(a[k], stream),
            None => params.out[k],
        };
        params.b[k] = address(b[k], stream);
    }
    let mut builder = device.kernels().elementwise.ew_add_sub_many.builder(stream);
    builder.arg_pod(&params);
    let mut config = elementwise_config(pairs);
    config.grid_dim.1 = count as u32;
    // SAFETY: matches `ew_add_sub_many(ManyParams)`: `count` <= EW_MAX_MANY polynomials, each
    // address holding the context's `poly_len` values (checked by the caller), the moduli
    // table of the context; `out` stays mutably borrowed for the call, and an in-place `out[k]`
    // is read and written pair by pair by the same thread.
    unsafe { builder.launch(config) }?;
    Ok(())
}

/// Mirror of `CopyManyParams` in `kernels/elementwise.cu` (device addresses as `u64`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
struct CopyManyParams {
    dst: [u64; MAX_MANY],
    src: [u64; MAX_MANY],
    pairs: [u64; MAX_MANY],
}

/// `dst[k] <- src[k]` for every pair, [`MAX_MANY`] buffers per launch, on `device`'s stream.
/// Errors with [`PolyError::LengthMismatch`] unless each pair has equal, even lengths (nothing
/// is launched then).
pub(crate) fn copy_many(device: &crate::GpuDevice, pairs: &mut [(&CudaSlice<u64>, &mut CudaSlice<u64>)]) -> Result<()> {
    for (src, dst) in pairs.iter() {
        if src.len() != dst.len() || src.len() % 2 != 0 {
            return Err(PolyError::LengthMismatch { expected: src.len(), actual: dst.len() }.into());
        }
    }
    let stream = device.stream();
    for chunk in pairs.chunks_mut(MAX_MANY) {
        let mut params = CopyManyParams::default();
        let mut most = 0u64;
        for (k, (src, dst)) in chunk.iter_mut().enumerate() {
            params.src[k] = address(&**src, stream);
            params.dst[k] = address_mut(&mut **dst, stream);
            params.pairs[k] = (src.len() / 2) as u64;
            most = most.max(params.pairs[k]);
        }
        if most == 0 {
            continue;
        }
        let mut builder = device.kernels().elementwise.ew_copy_many.builder(stream);
        builder.arg_pod(&params);
        let mut config = elementwise_config(most);
        config.grid_dim.1 = chunk.len() as u32;
        // SAFETY: matches `ew_copy_many(CopyManyParams)`: grid y = the chunk's buffers, each
        // `src[k]`/`dst[k]` holding `2 pairs[k]` words (lengths checked equal above); the
        // destinations stay mutably borrowed for the call, so no source aliases them.
        unsafe { builder.launch(config) }?;
    }
    Ok(())
}

/// Element-wise kernels of `kernels/elementwise.cu` with two operands: `ew_add`, `ew_sub`,
/// `ew_mul`, `ew_gauss_mul` (`out = a op b`), `ew_mul_add`, `ew_gauss_mul_add` (`out += a b`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BinaryOp {
    Add,
    Sub,
    Mul,
    MulAdd,
    GaussMul,
    GaussMulAdd,
}

impl BinaryOp {
    fn kernel(self, kernels: &ElementwiseKernels) -> &Kernel {
        match self {
            BinaryOp::Add => &kernels.ew_add,
            BinaryOp::Sub => &kernels.ew_sub,
            BinaryOp::Mul => &kernels.ew_mul,
            BinaryOp::MulAdd => &kernels.ew_mul_add,
            BinaryOp::GaussMul => &kernels.ew_gauss_mul,
            BinaryOp::GaussMulAdd => &kernels.ew_gauss_mul_add,
        }
    }
}

/// One thread per item (pair or value), grid capped at `u32::MAX` blocks.
fn elementwise_config(items: u64) -> LaunchConfig {
    linear_config(usize::try_from(items).unwrap_or(usize::MAX), u32::MAX as usize)
}

/// `[c_0 d_0, c_0 d_1 + c_1 d_0, c_1 d_1]` into `out` (`ew_tensor`, NTT evaluation
/// representation). The caller checks that every buffer belongs to `context` and holds
/// `out[0].len()` values.
pub(crate) fn tensor(
    context: &GpuContext,
    out: [&mut CudaSlice<u64>; 3],
    c: [&CudaSlice<u64>; 2],
    d: [&CudaSlice<u64>; 2],
) -> Result<()> {
    let stream = context.device().stream();
    let len = out[0].len();
    let [out0, out1, out2] = out;
    let out = [address_mut(out0, stream), address_mut(out1, stream), address_mut(out2, stream)];
    // SAFETY: the three outputs are distinct buffers (mutably borrowed), the four inputs hold
    // `len` values each (the caller checks one context, hence one length) and may alias one
    // another (a square), never an output; all live on this context's stream.
    unsafe {
        tensor_raw(
            context,
            out,
            [address(c[0], stream), address(c[1], stream)],
            [address(d[0], stream), address(d[1], stream)],
            len,
        )
    }
}

/// [`tensor`] on device addresses: `out` three distinct ranges of `len` words, `c` and `d` two
/// each (they may alias one another, never an output).
///
/// # Safety
/// Every address is that of `len` words of a buffer on `context`'s device stream, live until
/// the kernel has run; the outputs do not overlap each other or any input.
pub(crate) unsafe fn tensor_raw(
    context: &GpuContext,
    out: [u64; 3],
    c: [u64; 2],
    d: [u64; 2],
    len: usize,
) -> Result<()> {
    let device = context.device();
    let pairs = (len / 2) as u64;
    let (log_n, limbs) = (context.degree().trailing_zeros() as i32, context.num_limbs() as i32);
    let mut builder = device.kernels().elementwise.ew_tensor.builder(device.stream());
    builder.arg(&out[0]).arg(&out[1]).arg(&out[2]).arg(&c[0]).arg(&c[1]).arg(&d[0]).arg(&d[1]);
    builder.arg(context.moduli_table()).arg(&log_n).arg(&limbs).arg(&pairs);
    // SAFETY: matches `ew_tensor(out0, out1, out2, c0, c1, d0, d1, moduli, log_n,
    // limbs_per_poly, pairs)` (pointers passed as their addresses); the caller vouches for
    // the ranges (`len` words each: one polynomial of `context`) and their disjointness.
    unsafe { builder.launch(elementwise_config(pairs)) }?;
    Ok(())
}

/// `out <- op(a, b)` over `out.len()` values, where `a` is `out` itself when `None`
/// (in place); for the `*_add` ops `out` is the accumulator and `a` must be given.
pub(crate) fn binary(
    context: &GpuContext,
    op: BinaryOp,
    out: &mut CudaSlice<u64>,
    a: Option<&CudaSlice<u64>>,
    b: &CudaSlice<u64>,
) -> Result<()> {
    let device = context.device();
    let stream = device.stream();
    let pairs = (out.len() / 2) as u64;
    let (log_n, limbs) = (context.degree().trailing_zeros() as i32, context.num_limbs() as i32);
    // In place, the kernel reads and writes `out` at the same pair. cudarc wants distinct
    // borrows per argument, so in-place calls pass the raw device pointer twice.
    let out_ptr = address_mut(out, stream);
    let mut builder = op.kernel(&device.kernels().elementwise).builder(stream);
    builder.arg(&out_ptr);
    match a {
        Some(a) => builder.arg(a),
        None => builder.arg(&out_ptr),
    };
    builder.arg(b).arg(context.moduli_table()).arg(&log_n).arg(&limbs).arg(&pairs);
    // SAFETY: matches `ew_*(out, a, b, moduli, log_n, limbs_per_poly, pairs)`; every pointer
    // addresses `out.len()` values (callers check equal contexts, hence equal lengths), and
    // `out` stays mutably borrowed for the call.
    unsafe { builder.launch(elementwise_config(pairs)) }?;
    Ok(())
}

/// `a <- -a`.
pub(crate) fn neg_assign(context: &GpuContext, a: &mut CudaSlice<u64>) -> Result<()> {
    let device = context.device();
    let stream = device.stream();
    let pairs = (a.len() / 2) as u64;
    let (log_n, limbs) = (context.degree().trailing_zeros() as i32, context.num_limbs() as i32);
    let ptr = address_mut(a, stream);
    let mut builder = device.kernels().elementwise.ew_neg.builder(stream);
    builder.arg(&ptr).arg(&ptr).arg(context.moduli_table()).arg(&log_n).arg(&limbs).arg(&pairs);
    // SAFETY: matches `ew_neg(out, a, moduli, log_n, limbs_per_poly, pairs)`, in place.
    unsafe { builder.launch(elementwise_config(pairs)) }?;
    Ok(())
}

/// `a <- c * a` with `scalars` `[limb]` pairs `{c_i, shoup(c_i)}` on the device.
pub(crate) fn scalar_mul_assign(context: &GpuContext, a: &mut CudaSlice<u64>, scalars: &CudaSlice<u64>) -> Result<()> {
    let device = context.device();
    let stream = device.stream();
    let pairs = (a.len() / 2) as u64;
    let (log_n, limbs) = (context.degree().trailing_zeros() as i32, context.num_limbs() as i32);
    let ptr = address_mut(a, stream);
    let mut builder = device.kernels().elementwise.ew_scalar_mul.builder(stream);
    builder.arg(&ptr).arg(&ptr).arg(scalars).arg(context.moduli_table()).arg(&log_n).arg(&limbs).arg(&pairs);
    // SAFETY: matches `ew_scalar_mul(out, a, scalars, moduli, log_n, limbs_per_poly, pairs)`.
    unsafe { builder.launch(elementwise_config(pairs)) }?;
    Ok(())
}

/// `out <- a(x^g)` on coefficients, `g_inv = g^-1 mod 2N`; `out` and `a` distinct, same length.
pub(crate) fn automorphism(
    context: &GpuContext,
    out: &mut CudaSlice<u64>,
    a: &CudaSlice<u64>,
    g_inv: u64,
) -> Result<()> {
    let device = context.device();
    let total = a.len() as u64;
    let (log_n, limbs) = (context.degree().trailing_zeros() as i32, context.num_limbs() as i32);
    let mut builder = device.kernels().elementwise.ew_automorphism.builder(device.stream());
    builder.arg(out).arg(a).arg(context.moduli_table()).arg(&log_n).arg(&limbs).arg(&g_inv).arg(&total);
    // SAFETY: matches `ew_automorphism(out, a, moduli, log_n, limbs_per_poly, g_inv, total)`.
    unsafe { builder.launch(elementwise_config(total)) }?;
    Ok(())
}

/// `out <- sigma_g(a)` on NTT evaluations (a permutation of each limb; `g` odd).
pub(crate) fn automorphism_eval(
    context: &GpuContext,
    out: &mut CudaSlice<u64>,
    a: &CudaSlice<u64>,
    g: u64,
) -> Result<()> {
    let device = context.device();
    let total = a.len() as u64;
    let log_n = context.degree().trailing_zeros() as i32;
    let mut builder = device.kernels().elementwise.ew_automorphism_eval.builder(device.stream());
    builder.arg(out).arg(a).arg(&log_n).arg(&g).arg(&total);
    // SAFETY: matches `ew_automorphism_eval(out, a, log_n, g, total)`: `out` and `a` hold
    // `total` values, whole limbs of 2^log_n (the caller's polynomials of `context`, N >= 2), and
    // every index the kernel reads is within the value's own limb.
    unsafe { builder.launch(elementwise_config(total)) }?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_knob_takes_valid_entries_only() {
        assert_eq!(parse_split("15:7x8", 15), Some((7, 8)));
        assert_eq!(parse_split("16:8x8, 15:7x8", 15), Some((7, 8)));
        assert_eq!(parse_split("15:7x8", 16), None);
        // The passes must add up to log_n and have kernels.
        assert_eq!(parse_split("15:7x9", 15), None);
        assert_eq!(parse_split("17:7x10", 17), None);
        assert_eq!(parse_split("14:4x10", 14), None);
        assert_eq!(parse_split("15:7-8", 15), None);
        assert_eq!(parse_split("", 15), None);
    }

    /// A two-pass contiguous pass never spans the whole transform (its inverse kernels have no
    /// stage-0 scale): such a launch is refused, not run.
    #[test]
    fn contiguous_pass_of_the_whole_transform_is_refused() {
        assert!(pass_launch(PassFunction::Inverse, PassKind::Contiguous, 1 << 9, 9, 1, true).is_err());
        assert!(pass_launch(PassFunction::Inverse, PassKind::Contiguous, 1 << 10, 9, 1, true).is_ok());
    }

    /// The contiguous blocks' shared-memory layout of kernels/ntt.cu (`Pass::swizzle`, mirrored
    /// here): a permutation of each block's words, and in every round's window (and in the
    /// coalesced row loops) the 16 threads of a half-warp reach 16 distinct banks of 64-bit
    /// words, for every contiguous and single-block kernel built.
    #[test]
    fn contiguous_shared_layout_is_conflict_free() {
        const SWIZZLE_NIBBLES: u32 = 0x369C_FA50; // kernels/ntt.cu
        let swizzle = |a: usize| a ^ ((SWIZZLE_NIBBLES >> ((a >> 2) & 28)) & 15) as usize;
        let mut shapes: Vec<(u32, u32, u32)> = PASS_KERNELS
            .iter()
            .filter(|k| k.kind == PassKind::Contiguous)
            .map(|k| (k.log_m, k.log_radix, k.columns))
            .collect();
        shapes.extend((10..=12).map(|log_n| (log_n, SINGLE_LOG_RADIX, 1)));
        for (log_m, log_r, columns) in shapes {
            let (m, r) = (1usize << log_m, 1usize << log_r);
            let words = columns as usize * m;
            let threads = words / r;
            let mut seen = vec![false; words];
            for a in 0..words {
                assert!(swizzle(a) < words && !std::mem::replace(&mut seen[swizzle(a)], true), "2^{log_m}: {a}");
            }
            // Round windows, as Pass::window: the top round owns the highest bits.
            let rounds = log_m.div_ceil(log_r);
            let short = log_m - (rounds - 1) * log_r;
            let windows = (0..rounds).map(|q| if q == 0 { log_m - log_r } else { log_m - short - q * log_r });
            let mut accesses: Vec<Vec<usize>> = Vec::new();
            for w in windows {
                for u in 0..r {
                    accesses.push(
                        (0..threads)
                            .map(|tid| {
                                let (f, column) = (tid % (m / r), tid / (m / r));
                                let base = (f & ((1 << w) - 1)) | ((f >> w) << (w + log_r));
                                column * m + base + (u << w)
                            })
                            .collect(),
                    );
                }
            }
            for t in 0..r {
                accesses.push((0..threads).map(|tid| tid + t * threads).collect());
            }
            for access in accesses {
                for half_warp in access.chunks(16) {
                    let mut banks: Vec<usize> = half_warp.iter().map(|&a| swizzle(a) % 16).collect();
                    banks.sort_unstable();
                    banks.dedup();
                    assert_eq!(banks.len(), half_warp.len(), "2^{log_m}, radix 2^{log_r}, {columns} columns");
                }
            }
        }
    }

    /// With the default knobs, the passes of each launch size take the shapes `pass_shape`
    /// documents (small launches: radix-4 contiguous pass; medium ones: radix 4 with 8-column
    /// strided and 512-point contiguous blocks where those kernels exist, and radix-4 strided
    /// passes of 2^6 points above 2^18 and up to 2^19 points; larger ones radix 16 strided, radix 8
    /// contiguous), and every launch covers each limb's `N` points exactly once.
    #[test]
    fn pass_shapes_follow_the_launch_size() {
        if std::env::vars().any(|(name, _)| name.starts_with("POLY_CUDA_NTT_")) {
            eprintln!("skipped: a POLY_CUDA_NTT_* knob is set");
            return;
        }
        for log_n in 13u32..=17 {
            let schedule = NttSchedule::for_log_degree(log_n).unwrap();
            let NttSchedule::TwoPass { strided, contiguous } = schedule else { unreachable!() };
            for grid_y in [1u32, 2, 4, 5, 8, 9, 12, 16, 17, 24, 25, 32, 48, 64] {
                let points = (grid_y as usize) << log_n;
                let label = format!("N = 2^{log_n}, {grid_y} limbs ({points} points)");
                let passes = ntt_passes(NttTransform::Forward, &schedule, log_n, grid_y).unwrap();
                let [first, last] = passes.as_slice() else { panic!("{label}: {} passes", passes.len()) };
                let small = points <= DEFAULT_SMALL_LAUNCH_POINTS;
                let medium_strided = !small && points <= DEFAULT_MEDIUM_LAUNCH_POINTS && (7..=8).contains(&strided);
                let short_strided =
                    points > SHORT_STRIDED_MIN_POINTS && points <= DEFAULT_SHORT_STRIDED_LAUNCH_POINTS && strided <= 6;
                let medium_contiguous =
                    !small && points <= DEFAULT_MEDIUM_CONTIGUOUS_LAUNCH_POINTS && (7..=9).contains(&contiguous);
                let strided_suffix = if medium_strided {
                    "_lr2_c8".to_string()
                } else if short_strided {
                    "_lr2".to_string()
                } else {
                    format!("_lr{}", if strided > 6 { 4 } else { 3 })
                };
                assert!(first.name.ends_with(&strided_suffix), "{label}: {}", first.name);
                let contiguous_suffix = match (small && contiguous <= 6, medium_contiguous) {
                    (true, _) => "_lr2",
                    (false, true) => "_lr2_w512",
                    (false, false) => "_lr3",
                };
                assert!(last.name.ends_with(contiguous_suffix), "{label}: {}", last.name);
                for pass in [first, last] {
                    let kernel = PASS_KERNELS.get(pass.index).unwrap();
                    let (grid, block) = (pass.config.grid_dim, pass.config.block_dim);
                    assert_eq!(grid.1, grid_y, "{label}: {}", pass.name);
                    assert_eq!((grid.0 * kernel.columns) << kernel.log_m, 1 << log_n, "{label}: {}", pass.name);
                    assert_eq!(block.0 << kernel.log_radix, kernel.columns << kernel.log_m, "{label}: {}", pass.name);
                }
            }
        }
    }

    /// For every schedule and launch size: the inverse of a product launches the inverse's
    /// kernels with the same shapes, its first kernel replaced by that kernel's product
    /// variant; the inverse of a multiply-add too, but for its first pass's shape above the
    /// small launches;
    /// exactly the first pass of each transform is marked as the one that reads the source
    /// (forward) or takes the product (inverse).
    #[test]
    fn inverse_of_product_replaces_only_the_first_inverse_kernel() {
        let mut schedules: Vec<(u32, NttSchedule)> =
            (10..=17).map(|log_n| (log_n, NttSchedule::for_log_degree(log_n).unwrap())).collect();
        schedules.extend((10..=12).map(|log_n| (log_n, NttSchedule::Single { log_n })));
        for (log_n, schedule) in schedules {
            for grid_y in [1u32, 3, 16, 17, 32, 33, 64, 300] {
                let label = format!("{schedule:?}, N = 2^{log_n}, {grid_y} limbs");
                let forward = ntt_passes(NttTransform::Forward, &schedule, log_n, grid_y).unwrap();
                let inverse = ntt_passes(NttTransform::Inverse, &schedule, log_n, grid_y).unwrap();
                let product = ntt_passes(NttTransform::InverseOfProduct, &schedule, log_n, grid_y).unwrap();
                let mul_add = ntt_passes(NttTransform::InverseOfMulAdd, &schedule, log_n, grid_y).unwrap();
                assert_eq!(inverse.len(), product.len(), "{label}");
                assert_eq!(inverse.len(), mul_add.len(), "{label}");
                assert_eq!(forward.len(), inverse.len(), "{label}");
                for passes in [&forward, &inverse, &product, &mul_add] {
                    let firsts: Vec<bool> = passes.iter().map(|p| p.first).collect();
                    assert_eq!(firsts.iter().filter(|&&f| f).count(), 1, "{label}");
                    assert!(firsts[0], "{label}");
                }
                assert_eq!(product[0].name, inverse[0].name.replacen("ntt_inv_", "ntt_inv_product_", 1), "{label}");
                // The multiply-add pass is the inverse's first pass, or above the small launches
                // the medium contiguous shape (radix 4, 512 points a block: the same threads a
                // block, twice the blocks) where that kernel exists.
                let same = inverse[0].name.replacen("ntt_inv_", "ntt_inv_mul_add_", 1);
                if mul_add[0].name == same {
                    assert_eq!(mul_add[0].config.grid_dim, inverse[0].config.grid_dim, "{label}");
                } else {
                    let points = (grid_y as usize) << log_n;
                    assert!(points > DEFAULT_SMALL_LAUNCH_POINTS, "{label}");
                    assert!(inverse[0].name.ends_with("_lr3"), "{label}: {}", inverse[0].name);
                    assert_eq!(mul_add[0].name, same.replacen("_lr3", "_lr2_w512", 1), "{label}");
                    let (g, i) = (mul_add[0].config.grid_dim, inverse[0].config.grid_dim);
                    assert_eq!((g.0, g.1, g.2), (2 * i.0, i.1, i.2), "{label}");
                }
                assert_eq!(mul_add[0].config.block_dim, inverse[0].config.block_dim, "{label}");
                for (p, i) in product.iter().zip(&inverse).chain(mul_add.iter().zip(&inverse).skip(1)) {
                    assert_eq!(p.config.grid_dim, i.config.grid_dim, "{label}");
                    assert_eq!(p.config.block_dim, i.config.block_dim, "{label}");
                }
                for (p, i) in product.iter().zip(&inverse).skip(1).chain(mul_add.iter().zip(&inverse).skip(1)) {
                    assert_eq!(p.name, i.name, "{label}");
                }
                // Each pass names the kernel table entry that its handle is taken from.
                for pass in forward.iter().chain(&inverse).chain(&product).chain(&mul_add) {
                    let names = match pass.table {
                        KernelTable::Pass => PASS_KERNELS.get(pass.index).map(|k| k.names),
                        KernelTable::Single => SINGLE_KERNELS.get(pass.index).copied(),
                    };
                    assert_eq!(names.and_then(|n| n.get(pass.function)), Some(pass.name), "{label}");
                }
                // The forward's first pass is the strided one (or the single-block kernel).
                assert!(!forward[0].name.contains("contiguous"), "{label}: {}", forward[0].name);
                assert!(!product[0].name.contains("strided"), "{label}: {}", product[0].name);
                assert!(!mul_add[0].name.contains("strided"), "{label}: {}", mul_add[0].name);
            }
        }
    }
}
