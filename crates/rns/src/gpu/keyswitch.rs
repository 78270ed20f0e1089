//! [`GpuKeySwitch`]: ModUp and ModDown of [`KeySwitchContext`] on the device, word for word,
//! and the batched key switching of `kernels/keyswitch.cu` (ModUp of every digit into one
//! buffer, one forward transform of the batch, one inner-product kernel with the key).

use core::ops::Range;

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use poly::{Coeff, Eval, TransformKind};
use poly_cuda::cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut, LaunchConfig};
use poly_cuda::graph::{GraphCache, Replay};
use poly_cuda::kernel::{MAX_GRID_Y, THREADS, linear_config};
use poly_cuda::{DevicePoly, DevicePolyBatch, GpuContext, GpuDevice, GpuError};

// ModUp launches aim for TARGET_BLOCKS blocks (splitting the output limbs into groups), the
// grid-stride inner product stops at MAX_STRIDE_BLOCKS: the conversions' geometry.
use super::launch::{
    CONVERT_BATCH, CONVERT_DIGITS, ConvertKernel, ConvertParams, ConverterLayout, DeviceTables, HostTables,
    MAX_STRIDE_BLOCKS, RnsKernels, TARGET_BLOCKS,
};
use super::{GpuRnsError, Result, check_poly};
use crate::{Extension, KeySwitchContext, RnsError, check_len};

/// `KS_MAX_DIGITS` in `kernels/keyswitch.cu` ([`GpuKeySwitch::MAX_DIGITS_PER_LAUNCH`]).
const MAX_DIGITS_PER_LAUNCH: usize = 128;

// Threads per block of the kernels of `kernels/keyswitch.cu`: `poly_cuda::kernel::THREADS`,
// which `KS_THREADS` there equals. `MAX_GRID_Y` bounds the digits per ModUp launch and
// `digits * limbs` per transform launch of the batch.

/// Mirror of `ModUpParams` in `kernels/keyswitch.cu`: device addresses as `u64`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, Pod, Zeroable)]
struct ModUpParams {
    input: u64,
    output: u64,
    q_p: u64,
    n: u64,
    limbs: u32,
    first_source: u32,
    digits: u32,
    centered: u32,
    limb_group: u32,
    unused: u32,
}

/// Mirror of `InnerProductParams` in `kernels/keyswitch.cu`: device addresses as `u64`, the
/// key digits' addresses in the two fixed arrays (unused entries 0).
#[repr(C)]
#[derive(Debug, Clone, Copy, Pod, Zeroable)]
struct InnerProductParams {
    extended: u64,
    output: u64,
    moduli: u64,
    key_b: [u64; MAX_DIGITS_PER_LAUNCH],
    key_a: [u64; MAX_DIGITS_PER_LAUNCH],
    n: u64,
    log_n: u32,
    limbs: u32,
    digits: u32,
    accumulate: u32,
    special: u64,
    special_from: u32,
    unused: u32,
}

/// Mirror of `ModDownEvalParams` in `kernels/keyswitch.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, Pod, Zeroable)]
struct ModDownEvalParams {
    sums: u64,
    remainder: u64,
    addend0: u64,
    addend1: u64,
    out0: u64,
    out1: u64,
    moduli: u64,
    p_inv: u64,
    p_inv_shoup: u64,
    error_scale: u64,
    log_n: u32,
    limbs_q: u32,
    limbs_qp: u32,
    unused: u32,
}

// The kernels read these structs byte for byte, laid out as the C structs of
// kernels/keyswitch.cu (same field order and types; u64 for pointers): their sizes are those
// of the C structs (`Pod` already rules out padding).
const _: () = assert!(size_of::<ModUpParams>() == 4 * 8 + 6 * 4);
const _: () = assert!(size_of::<ModDownEvalParams>() == 10 * 8 + 4 * 4);
const _: () = assert!(size_of::<InnerProductParams>() == (5 + 2 * MAX_DIGITS_PER_LAUNCH) * 8 + 6 * 4);

poly_cuda::kernel_set! {
    /// The kernels of `kernels/keyswitch.cu`, loaded once per device.
    struct BatchKernels(hegpu_kernels::KEYSWITCH) {
        keyswitch_mod_up_one_prime,
        keyswitch_inner_product,
        keyswitch_inner_product_gaussian,
        keyswitch_mod_down_eval,
    }
}

/// Whether products in the evaluation domain of `transform` are Gaussian (the DGTs) rather
/// than coordinate-wise (the NTT).
/// Environment knob: set to 1, one-prime digits take the ModUp kernel and then the transform
/// (the path before the fused first pass, for A/B runs); read once per process.
pub const SEPARATE_MOD_UP_ENV: &str = "HEGPU_KS_SEPARATE_MOD_UP";

/// Environment knob: set to 1, the key inner product runs as its own kernel after the whole
/// forward transform (the path before the fused last pass, for A/B runs); read once per process.
pub const UNFUSED_INNER_PRODUCT_ENV: &str = "HEGPU_KS_UNFUSED_INNER_PRODUCT";

fn unfused_inner_product_forced() -> bool {
    static KNOB: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *KNOB.get_or_init(|| std::env::var(UNFUSED_INNER_PRODUCT_ENV).is_ok_and(|v| v == "1"))
}

/// Environment knob: set to 1, ModDown in the evaluation representation forms its outputs in a
/// kernel of its own after the forward transform of the remainder (the path before the fused
/// epilogue, for A/B runs); read once per process.
pub const SEPARATE_MOD_DOWN_ENV: &str = "HEGPU_KS_SEPARATE_MOD_DOWN";

fn separate_mod_down_forced() -> bool {
    static KNOB: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *KNOB.get_or_init(|| std::env::var(SEPARATE_MOD_DOWN_ENV).is_ok_and(|v| v == "1"))
}

/// Environment knob: set to 1, the fused inner product transforms the digits' own limbs even
/// where the input's evaluations are given (the path before reading them, for A/B runs); read
/// once per process.
pub const TRANSFORM_OWN_LIMBS_ENV: &str = "HEGPU_KS_TRANSFORM_OWN_LIMBS";

fn transform_own_limbs_forced() -> bool {
    static KNOB: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *KNOB.get_or_init(|| std::env::var(TRANSFORM_OWN_LIMBS_ENV).is_ok_and(|v| v == "1"))
}

/// Environment knob: set to 1, ModUp converts each digit of several primes in a launch of its
/// own (the path before one launch for all of them, for A/B runs); read once per process.
pub const CONVERSION_PER_DIGIT_ENV: &str = "HEGPU_KS_CONVERSION_PER_DIGIT";

fn conversion_per_digit_forced() -> bool {
    static KNOB: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *KNOB.get_or_init(|| std::env::var(CONVERSION_PER_DIGIT_ENV).is_ok_and(|v| v == "1"))
}

/// The conversion kernel of a ModUp by `extension`.
fn conversion_kernel(extension: Extension) -> ConvertKernel {
    match extension {
        Extension::Fast => ConvertKernel::Fast,
        Extension::Exact => ConvertKernel::Exact,
    }
}

fn separate_mod_up_forced() -> bool {
    static KNOB: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *KNOB.get_or_init(|| std::env::var(SEPARATE_MOD_UP_ENV).is_ok_and(|v| v == "1"))
}

fn is_gaussian(transform: TransformKind) -> bool {
    !matches!(transform, TransformKind::Ntt)
}

/// A ModUp or inner-product buffer address that the kernels' 16-byte accesses cannot use.
fn misaligned(what: &str, address: u64) -> GpuRnsError {
    GpuError::Unsupported { what: format!("{what} at device address {address:#x} (16-byte alignment needed)") }.into()
}

/// A [`KeySwitchContext`] with its tables on one device: ModUp of each digit (fast or exact
/// extension; the digit's own limbs are copied by the same kernel) and ModDown (the exact
/// conversion `P -> q` fused with the subtraction and the multiplication by `P^-1`). Every
/// output equals the CPU's word for word.
///
/// Digits of one prime (one special prime: SEAL's method) are extended by one launch of
/// `keyswitch_mod_up_one_prime` for all of them (the centered lift of the digit's limb reduced
/// modulo every other prime, which is what the exact conversion of a one-limb base computes);
/// digits of several primes (hybrid key switching) by one conversion launch each.
///
/// [`key_switch_accumulate`](Self::key_switch_accumulate) is the batched inner product of key
/// switching: ModUp of every digit into one buffer `[digits][q u P][N]`, one forward transform
/// of the whole buffer, and one kernel forming `sum_j ext_j key_b_j` and `sum_j ext_j key_a_j`.
///
/// Buffer rules and error behaviour as for [`GpuBehz`](super::GpuBehz).
#[derive(Debug)]
pub struct GpuKeySwitch {
    kernels: RnsKernels,
    batch: Arc<BatchKernels>,
    tables: DeviceTables,
    /// Per digit: its limbs of `q` and the converter `D_j -> (q \ D_j) u P`.
    digits: Vec<(Range<usize>, ConverterLayout)>,
    p_to_q: ConverterLayout,
    /// With an error scale `E != 1` ([`with_error_scale`](Self::with_error_scale)): `E` and
    /// the converter `P -> q` with `E^-1` folded into its per-limb scale, for
    /// [`mod_down_eval`](Self::mod_down_eval).
    p_to_q_scaled: Option<(u64, ConverterLayout)>,
    p_inv_q: usize,
    p_inv_q_shoup: usize,
    /// `E P^-1 mod q_i` and its Shoup companions (`E` the error scale, 1 by default).
    e_p_inv_q: (usize, usize),
    /// The moduli of `q u P` as `{p, barrett_hi, barrett_lo}` triples.
    q_p_moduli: usize,
    degree: usize,
    q: Vec<u64>,
    p: Vec<u64>,
    q_p: Vec<u64>,
    /// Recorded [`switch_key`](Self::switch_key) and [`switch_key_eval`](Self::switch_key_eval)
    /// launches, by signature.
    replays: GraphCache<Staging>,
}

/// A key switch on given inputs (the call's or the staging copies): its two output buffers.
type KeySwitchRun<'a> = dyn Fn(&DevicePoly<Coeff>, [Option<&DevicePoly<Eval>>; 2]) -> Result<Vec<CudaSlice<u64>>> + 'a;

/// Which key switch a recording holds (part of its signature).
#[derive(Debug, Clone, Copy)]
enum ReplayKind {
    Coefficients = 1,
    Evaluations = 2,
}

/// The two output buffers of a key switch as polynomials over `ring_q`.
fn two_polys<R: poly::Representation>(ring_q: &GpuContext, outputs: Vec<CudaSlice<u64>>) -> Result<[DevicePoly<R>; 2]> {
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
struct Staging {
    input: DevicePoly<Coeff>,
    addends: [Option<DevicePoly<Eval>>; 2],
    /// `q u P`, `P` and `q`: held, never read.
    #[allow(dead_code)]
    rings: [GpuContext; 3],
}

impl GpuKeySwitch {
    /// Most key digits one inner-product launch reads (`KS_MAX_DIGITS` in
    /// `kernels/keyswitch.cu`): their addresses travel in the kernel's by-value parameter
    /// struct. Longer keys take several launches, accumulating.
    pub const MAX_DIGITS_PER_LAUNCH: usize = MAX_DIGITS_PER_LAUNCH;

    /// The default bound, in bytes, on the buffer of extended digits of
    /// [`key_switch_accumulate`](Self::key_switch_accumulate) (1 GiB): digits beyond it are
    /// processed in chunks.
    pub const DEFAULT_BATCH_BYTES: usize = 1 << 30;

    /// Uploads the tables of `key_switch` to `device` (one allocation).
    pub fn new(device: &GpuDevice, key_switch: &KeySwitchContext) -> Result<Self> {
        Self::with_error_scale(device, key_switch, 1)
    }

    /// [`new`](Self::new) for key switching whose errors are multiples of `error_scale` (`E`;
    /// BGV's `t`): the tables also hold the ModDown converter `P -> q` with `E^-1 mod p_j`
    /// folded into the scale of each special limb, so [`mod_down_eval`](Self::mod_down_eval)
    /// converts `E^-1 x` without a pass over the limbs. Errors with
    /// [`RnsError::InvalidParameter`] for an `E` not invertible modulo a special prime.
    pub fn with_error_scale(device: &GpuDevice, key_switch: &KeySwitchContext, error_scale: u64) -> Result<Self> {
        let mut host = HostTables::default();
        let mut digits = Vec::with_capacity(key_switch.num_digits());
        for digit in 0..key_switch.num_digits() {
            let range = key_switch.digit_range(digit)?;
            digits.push((range, ConverterLayout::push(&mut host, key_switch.mod_up_converter(digit)?)));
        }
        let (p_to_q, p_inv_q, p_inv_q_shoup) = key_switch.mod_down_tables();
        let p_to_q_scaled = match error_scale {
            1 => None,
            e => {
                let from = p_to_q.from_base();
                let mut scale = Vec::with_capacity(from.len());
                let mut scale_shoup = Vec::with_capacity(from.len());
                for (m, &w) in from.moduli().iter().zip(from.punctured_inverses()) {
                    let inverse = m.inv(m.reduce(e)).map_err(|_| RnsError::InvalidParameter {
                        name: "error scale",
                        value: e,
                        reason: "must be invertible modulo every special prime",
                    })?;
                    let folded = m.mul(w, inverse);
                    scale.push(folded);
                    scale_shoup.push(m.shoup(folded));
                }
                let layout = ConverterLayout::push(&mut host, p_to_q).with_scale(&mut host, &scale, &scale_shoup);
                Some((e, layout))
            }
        };
        // E P^-1 mod q_i (Shoup pairs), which ModDown's fused epilogue multiplies the remainder by.
        let q_moduli = key_switch.q().moduli();
        let (mut e_p_inv, mut e_p_inv_shoup) = (Vec::with_capacity(q_moduli.len()), Vec::with_capacity(q_moduli.len()));
        for (m, &w) in q_moduli.iter().zip(p_inv_q) {
            let folded = m.mul(m.reduce(error_scale), w);
            e_p_inv.push(folded);
            e_p_inv_shoup.push(m.shoup(folded));
        }
        let e_p_inv_q = (host.push(&e_p_inv), host.push(&e_p_inv_shoup));
        let p_to_q = ConverterLayout::push(&mut host, p_to_q);
        let p_inv_q = host.push(p_inv_q);
        let p_inv_q_shoup = host.push(p_inv_q_shoup);
        let q_p = key_switch.q_p()?;
        let q_p_moduli = host.push_moduli(q_p.moduli());
        Ok(Self {
            kernels: RnsKernels::load(device)?,
            batch: device.kernel_set::<BatchKernels>()?,
            tables: host.upload(device)?,
            digits,
            p_to_q,
            p_to_q_scaled,
            p_inv_q,
            p_inv_q_shoup,
            e_p_inv_q,
            q_p_moduli,
            degree: key_switch.degree(),
            q: key_switch.q().values(),
            p: key_switch.p().values(),
            q_p: q_p.values(),
            replays: GraphCache::default(),
        })
    }

    /// The ring degree `N`.
    pub fn degree(&self) -> usize {
        self.degree
    }

    /// Number of digits.
    pub fn num_digits(&self) -> usize {
        self.digits.len()
    }

    fn digit(&self, digit: usize) -> Result<&(Range<usize>, ConverterLayout)> {
        self.digits.get(digit).ok_or_else(|| RnsError::DigitOutOfRange { digit, count: self.digits.len() }.into())
    }

    /// Words of one polynomial over `q u P`.
    fn stride(&self) -> usize {
        self.q_p.len() * self.degree
    }

    /// The largest degree whose evaluation-form key switching ([`switch_key_eval`](Self::switch_key_eval))
    /// is replayed as a CUDA graph by default (`poly_cuda::graph::replay_enabled_up_to`). H100,
    /// 2026-11-24, eight rounds in three device calls: BGV Mul+Relin at 16384 3-11% faster replayed
    /// (host-bound there: the direct path issues a dozen launches); at 32768 slower (189.7 /
    /// 192.7 us against 182.0 / 171.2). Coefficient-form switching (BFV) keeps the default 2^13
    /// (its Mul+Relin at 16384 measured 2% slower replayed).
    pub const EVAL_REPLAY_MAX_DEGREE: usize = 1 << 14;

    /// The digits whose extensions fit in [`DEFAULT_BATCH_BYTES`](Self::DEFAULT_BATCH_BYTES) (at least 1).
    fn default_chunk_digits(&self) -> usize {
        (Self::DEFAULT_BATCH_BYTES / (8 * self.stride()).max(1)).max(1)
    }

    /// ModUp of one digit from `input` (`k N` words) to `output` (`(k + l) N` words); with
    /// `copy_own` false the digit's own limbs of `output` are left unwritten (a fused inner
    /// product reads them elsewhere; digits of several primes only).
    unsafe fn mod_up_raw(
        &self,
        digit: usize,
        extension: Extension,
        input: u64,
        output: u64,
        copy_own: bool,
    ) -> Result<()> {
        let (range, _) = self.digit(digit)?;
        if range.len() == 1 {
            // SAFETY: forwarded: one digit, one polynomial of output.
            return unsafe { self.mod_up_one_prime_raw(range.start, 1, extension, input, output) };
        }
        let params = self.mod_up_params(digit, input, output, copy_own)?;
        // SAFETY: tables of this context; buffers as documented by the caller. The output
        // limbs are those before the digit and after it (the kernel's skip) plus the digit's
        // own limbs (the copy): all k + l limbs.
        unsafe { self.kernels.convert(conversion_kernel(extension), params) }
    }

    /// The conversion parameters of [`mod_up_raw`](Self::mod_up_raw) for a digit of several
    /// primes (addresses as there).
    fn mod_up_params(&self, digit: usize, input: u64, output: u64, copy_own: bool) -> Result<ConvertParams> {
        let (range, converter) = self.digit(digit)?;
        let n = self.degree;
        let mut params = converter.params(&self.tables, n, converter.rows);
        let digit_start = 8 * (range.start * n) as u64;
        params.input = input + digit_start;
        params.copy = if copy_own { output + digit_start } else { 0 };
        params.output = output;
        // Target limbs: q's limbs before the digit, those after it, then P.
        params.skip_start = range.start as u32;
        params.skip_len = range.len() as u32;
        Ok(params)
    }

    /// ModUp of `count` consecutive digits of one prime each, digit `t` being limb
    /// `first_source + t` of `input` (`k N` words), into `count` polynomials over `q u P` at
    /// `output`. Caller: `first_source + count <= k`, `output` holds `count (k + l) N` words.
    unsafe fn mod_up_one_prime_raw(
        &self,
        first_source: usize,
        count: usize,
        extension: Extension,
        input: u64,
        output: u64,
    ) -> Result<()> {
        let (n, limbs) = (self.degree, self.q_p.len());
        if n == 0 || count == 0 {
            return Ok(());
        }
        let tiles = n.div_ceil(THREADS as usize);
        let mut done = 0;
        while done < count {
            let digits = (count - done).min(MAX_GRID_Y);
            // Enough blocks to fill the device: split the output limbs when coefficient tiles
            // and digits alone are too few (each thread reads its source word once per group).
            let wanted_groups = TARGET_BLOCKS.div_ceil(tiles * digits).clamp(1, limbs);
            let group = limbs.div_ceil(wanted_groups);
            let groups = limbs.div_ceil(group);
            let params = ModUpParams {
                input,
                output: output + 8 * (done * limbs * n) as u64,
                q_p: self.tables.at(self.q_p_moduli),
                n: n as u64,
                limbs: limbs as u32,
                first_source: (first_source + done) as u32,
                digits: digits as u32,
                centered: u32::from(extension == Extension::Exact),
                limb_group: group as u32,
                unused: 0,
            };
            let config = LaunchConfig {
                grid_dim: (tiles as u32, digits as u32, groups as u32),
                block_dim: (THREADS, 1, 1),
                shared_mem_bytes: 0,
            };
            let mut builder = self.batch.keyswitch_mod_up_one_prime.builder(self.kernels.stream());
            builder.arg_pod(&params);
            // SAFETY: matches `keyswitch_mod_up_one_prime(ModUpParams)`: `q_p` is this context's
            // table of k + l moduli; the caller vouches that `input` holds the k limbs of q (it
            // reads limbs first_source + done .. + digits < k) and `output` the `digits`
            // polynomials of (k + l) N words that the grid (every coefficient, digit and limb
            // group) writes completely.
            unsafe { builder.launch(config) }?;
            done += digits;
        }
        Ok(())
    }

    /// ModUp of the digits `digits` into consecutive polynomials over `q u P` at `output`
    /// (the first of them at `output`): runs of one-prime digits in one launch, every other
    /// digit by its conversion launch (`copy_own`: see [`mod_up_raw`](Self::mod_up_raw)).
    /// Caller: `output` holds `digits.len() (k + l) N` words.
    unsafe fn mod_up_digits_raw(
        &self,
        digits: Range<usize>,
        extension: Extension,
        input: u64,
        output: u64,
        copy_own: bool,
    ) -> Result<()> {
        let stride = 8 * self.stride() as u64;
        let mut digit = digits.start;
        while digit < digits.end {
            let at = output + (digit - digits.start) as u64 * stride;
            let (range, _) = self.digit(digit)?;
            let mut run = 1;
            if range.len() == 1 {
                while digit + run < digits.end && self.digit(digit + run)?.0.len() == 1 {
                    run += 1;
                }
                // Consecutive one-prime digits read consecutive limbs.
                // SAFETY: `run` polynomials from `at`, inside the caller's buffer.
                unsafe { self.mod_up_one_prime_raw(range.start, run, extension, input, at) }?;
            } else {
                // Consecutive digits of several primes: one conversion launch for up to
                // CONVERT_DIGITS of them (or one each, by the knob).
                let most = if conversion_per_digit_forced() { 1 } else { CONVERT_DIGITS };
                while run < most && digit + run < digits.end && self.digit(digit + run)?.0.len() > 1 {
                    run += 1;
                }
                let params = (0..run)
                    .map(|d| self.mod_up_params(digit + d, input, at + d as u64 * stride, copy_own))
                    .collect::<Result<Vec<_>>>()?;
                // SAFETY: `run` polynomials from `at`, inside the caller's buffer; each digit's
                // conversion writes the limbs `mod_up_raw` documents.
                unsafe { self.kernels.convert_digits(conversion_kernel(extension), &params) }?;
            }
            digit += run;
        }
        Ok(())
    }

    /// ModDown from `input` (`(k + l) N` words) to `output` (`k N` words).
    unsafe fn mod_down_raw(&self, input: u64, output: u64) -> Result<()> {
        // SAFETY: forwarded (a batch of one).
        unsafe { self.mod_down_batch_raw(&[(input, output)]) }
    }

    /// [`mod_down_raw`](Self::mod_down_raw) of up to `CONVERT_BATCH` `(input, output)` pairs
    /// in one launch.
    unsafe fn mod_down_batch_raw(&self, pairs: &[(u64, u64)]) -> Result<()> {
        let Some(&(input, output)) = pairs.first() else { return Ok(()) };
        let k = self.q.len();
        let p_offset = 8 * (k * self.degree) as u64;
        let mut params = self.p_to_q.params(&self.tables, self.degree, k);
        params.input = input + p_offset;
        params.extra = input;
        params.output = output;
        params.epi_a = self.tables.at(self.p_inv_q);
        params.epi_a_shoup = self.tables.at(self.p_inv_q_shoup);
        // Each member reads its P limbs (its input's extra, the q limbs, at the same offset).
        let members: Vec<(u64, u64)> = pairs.iter().map(|&(input, output)| (input + p_offset, output)).collect();
        // SAFETY: tables of this context; buffers as documented by the caller.
        unsafe { self.kernels.convert_batch(ConvertKernel::ModDown, params, &members) }
    }

    /// `output[0] (+)= sum_t extended_t key_t.0`, `output[1] (+)= sum_t extended_t key_t.1`
    /// over `q u P` (products Gaussian when `gaussian`), in launches of at most
    /// [`Self::MAX_DIGITS_PER_LAUNCH`] digits. Caller: `extended` holds `keys.len()` polynomials,
    /// each key address one, `output` two; all 16-byte aligned, `N` even.
    unsafe fn inner_product_raw(
        &self,
        gaussian: bool,
        extended: u64,
        keys: &[(u64, u64)],
        accumulate: bool,
        output: u64,
        special: Option<(u64, usize)>,
    ) -> Result<()> {
        let (n, limbs) = (self.degree, self.q_p.len());
        let stride = self.stride();
        let pairs = stride / 2;
        let config = linear_config(pairs, MAX_STRIDE_BLOCKS);
        let kernel =
            if gaussian { &self.batch.keyswitch_inner_product_gaussian } else { &self.batch.keyswitch_inner_product };
        for (chunk_index, chunk) in keys.chunks(MAX_DIGITS_PER_LAUNCH).enumerate() {
            let first = chunk_index * MAX_DIGITS_PER_LAUNCH;
            let mut params = InnerProductParams {
                extended: extended + 8 * (first * stride) as u64,
                output,
                moduli: self.tables.at(self.q_p_moduli),
                key_b: [0; MAX_DIGITS_PER_LAUNCH],
                key_a: [0; MAX_DIGITS_PER_LAUNCH],
                n: n as u64,
                log_n: n.trailing_zeros(),
                limbs: limbs as u32,
                digits: chunk.len() as u32,
                accumulate: u32::from(accumulate || chunk_index > 0),
                special: special.map_or(0, |(address, _)| address),
                special_from: special.map_or(0, |(_, first)| first as u32),
                unused: 0,
            };
            for (slot, &(b, a)) in chunk.iter().enumerate() {
                params.key_b[slot] = b;
                params.key_a[slot] = a;
            }
            let mut builder = kernel.builder(self.kernels.stream());
            builder.arg_pod(&params);
            // SAFETY: matches `keyswitch_inner_product[_gaussian](InnerProductParams)`: `moduli` is
            // this context's table of k + l moduli (limb = word >> log_n, N = 2^log_n even);
            // the caller vouches for `chunk.len()` extended polynomials from `params.extended`,
            // one polynomial per key address and two at `output`, 16-byte aligned, all on this
            // stream. The grid-stride loop covers all (k + l) N / 2 pairs.
            unsafe { builder.launch(config) }?;
        }
        Ok(())
    }

    /// [`KeySwitchContext::mod_up`] on the device: digit `digit` of `input` (over `q`) into
    /// `output` (over `q u P`).
    ///
    /// Errors: [`RnsError::DigitOutOfRange`], [`RnsError::LengthMismatch`], or
    /// [`GpuError::WrongContext`](poly_cuda::GpuError::WrongContext) for a buffer of another
    /// device or stream; `output` is untouched then.
    pub fn mod_up<I: DevicePtr<u64>, O: DevicePtrMut<u64>>(
        &self,
        input: &I,
        digit: usize,
        extension: Extension,
        output: &mut O,
    ) -> Result<()> {
        self.digit(digit)?;
        check_len("ModUp input", self.q.len() * self.degree, input.len())?;
        check_len("ModUp output", self.stride(), output.len())?;
        let (input, output) = (self.kernels.read_address(input)?, self.kernels.write_address(output)?);
        // SAFETY: lengths checked above; both buffers are on this stream.
        unsafe { self.mod_up_raw(digit, extension, input, output, true) }
    }

    /// [`KeySwitchContext::mod_up_all`] on the device: every digit, `output` holding
    /// `num_digits` polynomials over `q u P` one after the other (one launch for all digits
    /// of one prime). Errors as [`mod_up`](Self::mod_up).
    pub fn mod_up_all<I: DevicePtr<u64>, O: DevicePtrMut<u64>>(
        &self,
        input: &I,
        extension: Extension,
        output: &mut O,
    ) -> Result<()> {
        check_len("ModUp output (all digits)", self.stride() * self.digits.len(), output.len())?;
        check_len("ModUp input", self.q.len() * self.degree, input.len())?;
        let (input, output) = (self.kernels.read_address(input)?, self.kernels.write_address(output)?);
        // SAFETY: lengths checked above: digit j writes the j-th of the polynomials.
        unsafe { self.mod_up_digits_raw(0..self.digits.len(), extension, input, output, true) }
    }

    /// The inner product of key switching on device slices: with `D = key.len() >= 1`,
    /// `extended` holding `D` polynomials over `q u P` in the evaluation representation of
    /// `transform` (one after the other) and each key digit `(b_t, a_t)` one polynomial over
    /// `q u P`, writes `sum_t extended_t b_t` and then `sum_t extended_t a_t` to `output` (two
    /// polynomials), or adds them to its values when `accumulate`. Products are
    /// coordinate-wise for [`TransformKind::Ntt`] and Gaussian on `(re, im)` pairs for the
    /// DGTs, as `poly::Poly::mul_add_assign` forms them; the words equal the CPU's.
    ///
    /// Errors: [`RnsError::LengthMismatch`] (extended digits, key digit or output length),
    /// [`RnsError::InvalidParameter`] for an empty key or an odd degree,
    /// [`GpuError::WrongContext`](poly_cuda::GpuError::WrongContext) for a buffer of another
    /// device or stream, [`GpuError::Unsupported`](poly_cuda::GpuError::Unsupported) for a
    /// buffer that is not 16-byte aligned (a view at an odd offset); `output` is untouched then.
    pub fn inner_product<E: DevicePtr<u64>, K: DevicePtr<u64>, O: DevicePtrMut<u64>>(
        &self,
        transform: TransformKind,
        extended: &E,
        key: &[(&K, &K)],
        accumulate: bool,
        output: &mut O,
    ) -> Result<()> {
        let stride = self.stride();
        if key.is_empty() {
            return Err(RnsError::InvalidParameter {
                name: "key-switching key digits",
                value: 0,
                reason: "the inner product needs at least one digit",
            }
            .into());
        }
        if !self.degree.is_multiple_of(2) {
            return Err(RnsError::InvalidParameter {
                name: "degree",
                value: self.degree as u64,
                reason: "the batched inner product needs an even degree",
            }
            .into());
        }
        check_len("key-switching extended digits", key.len() * stride, extended.len())?;
        for (b, a) in key {
            check_len("key-switching key digit", stride, b.len())?;
            check_len("key-switching key digit", stride, a.len())?;
        }
        check_len("key-switching accumulators", 2 * stride, output.len())?;
        let extended = self.kernels.read_address(extended)?;
        let mut keys = Vec::with_capacity(key.len());
        for (b, a) in key {
            keys.push((self.kernels.read_address(*b)?, self.kernels.read_address(*a)?));
        }
        let output = self.kernels.write_address(output)?;
        for (what, address) in [("extended digits", extended), ("accumulators", output)]
            .into_iter()
            .chain(keys.iter().flat_map(|&(b, a)| [("key digit", b), ("key digit", a)]))
        {
            if address % 16 != 0 {
                return Err(misaligned(what, address));
            }
        }
        // SAFETY: lengths, streams and alignment checked above; N even.
        unsafe { self.inner_product_raw(is_gaussian(transform), extended, &keys, accumulate, output, None) }
    }

    /// Key switching's accumulation, batched: with `key` one pair `(b_j, a_j)` per digit over
    /// `q u P` (evaluation representation of `q_p`'s transform), returns the two polynomials
    /// `sum_j ModUp_j(input) b_j` and `sum_j ModUp_j(input) a_j` over `q u P` (evaluation
    /// representation), in one batch `[b sum, a sum]`: exactly what the CPU's loop of
    /// [`KeySwitchContext::mod_up`], forward transform and `mul_add_assign` gives.
    ///
    /// The extended digits of `input` go into one buffer `[digits][q u P][N]` and get one
    /// forward transform (over NTT rings, one-prime digits are extended by that transform's
    /// first pass; other digits by their ModUp launches first), and one kernel forms both
    /// sums. At most [`DEFAULT_BATCH_BYTES`](Self::DEFAULT_BATCH_BYTES) of extended digits are held at once: beyond that
    /// (or when the allocation runs out of memory) the digits are processed in chunks whose
    /// sums accumulate.
    ///
    /// Errors: [`RnsError::ContextMismatch`] unless `input`'s ring is `q` and `q_p`'s is `q u P`
    /// at this degree; [`RnsError::LengthMismatch`] unless `key` has one pair per digit;
    /// [`GpuError::WrongContext`](poly_cuda::GpuError::WrongContext) or a
    /// [`poly::PolyError::ContextMismatch`] (as a [`GpuError`]) for a key polynomial of another
    /// device or ring; device errors. Nothing is queued on an input error.
    pub fn key_switch_accumulate(
        &self,
        input: &DevicePoly<Coeff>,
        key: &[(DevicePoly<Eval>, DevicePoly<Eval>)],
        extension: Extension,
        q_p: &GpuContext,
    ) -> Result<DevicePolyBatch<Eval>> {
        let chunk = self.default_chunk_digits();
        self.key_switch_accumulate_in_chunks(input, key, extension, q_p, chunk)
    }

    /// [`key_switch_accumulate`](Self::key_switch_accumulate) holding the extended digits of
    /// at most `max_chunk_digits` digits at once (at least 1; fewer where the transform's grid
    /// limit of 65535 limbs per launch or an out-of-memory allocation asks for it). Same
    /// values for every chunk size; errors as `key_switch_accumulate`, and
    /// [`RnsError::InvalidParameter`] for `max_chunk_digits == 0`.
    pub fn key_switch_accumulate_in_chunks(
        &self,
        input: &DevicePoly<Coeff>,
        key: &[(DevicePoly<Eval>, DevicePoly<Eval>)],
        extension: Extension,
        q_p: &GpuContext,
        max_chunk_digits: usize,
    ) -> Result<DevicePolyBatch<Eval>> {
        self.accumulate_in_chunks(input, None, key, extension, q_p, max_chunk_digits, None)
    }

    /// The digits' own limbs as the fused inner product reads them from `input_eval` (the
    /// input in the evaluation representation): its device address and the digits' size `a`,
    /// where every digit `d` is the limbs `d a .. min((d + 1) a, k)` of `q` with `a >= 2`
    /// (one-prime digits are extended inside the transform instead). `None` otherwise.
    fn own_limbs(&self, input_eval: Option<&DevicePoly<Eval>>) -> Result<Option<(u64, usize)>> {
        let Some(input_eval) = input_eval else { return Ok(None) };
        check_poly(&self.kernels, input_eval.context(), &self.q, self.degree, "key-switching input (evaluations)")?;
        let k = self.q.len();
        let size = self.digits.first().map_or(0, |(range, _)| range.len());
        let uniform = size >= 2
            && !transform_own_limbs_forced()
            && self
                .digits
                .iter()
                .enumerate()
                .all(|(d, (range, _))| range.start == d * size && range.end == k.min((d + 1) * size));
        if !uniform {
            return Ok(None);
        }
        Ok(Some((self.kernels.read_address(input_eval.device_buffer())?, size)))
    }

    /// [`key_switch_accumulate_in_chunks`](Self::key_switch_accumulate_in_chunks), with the
    /// input's evaluations where the caller has them ([`own_limbs`](Self::own_limbs)): the
    /// fused inner product then reads the digits' own limbs there (same words). With `special`
    /// (a buffer of `[2][l][N]` words), the sums' special limbs go there instead of into the
    /// returned batch, whose rows of them are then unwritten.
    #[allow(clippy::too_many_arguments)]
    fn accumulate_in_chunks(
        &self,
        input: &DevicePoly<Coeff>,
        input_eval: Option<&DevicePoly<Eval>>,
        key: &[(DevicePoly<Eval>, DevicePoly<Eval>)],
        extension: Extension,
        q_p: &GpuContext,
        max_chunk_digits: usize,
        special: Option<&mut CudaSlice<u64>>,
    ) -> Result<DevicePolyBatch<Eval>> {
        check_poly(&self.kernels, input.context(), &self.q, self.degree, "key-switching input")?;
        let own = self.own_limbs(input_eval)?;
        let special = match special {
            Some(buffer) => {
                check_len("key-switching special sums", 2 * self.p.len() * self.degree, buffer.len())?;
                Some((self.kernels.write_address(buffer)?, self.q.len()))
            }
            None => None,
        };
        check_poly(&self.kernels, q_p, &self.q_p, self.degree, "key-switching ring q u P")?;
        let digits = self.digits.len();
        check_len("key-switching key digits", digits, key.len())?;
        if max_chunk_digits == 0 {
            return Err(RnsError::InvalidParameter {
                name: "digits per chunk",
                value: 0,
                reason: "must be at least 1",
            }
            .into());
        }
        let mut keys = Vec::with_capacity(digits);
        for (b, a) in key {
            q_p.check_compatible(b.context())?;
            q_p.check_compatible(a.context())?;
            let pair = (self.kernels.read_address(b.device_buffer())?, self.kernels.read_address(a.device_buffer())?);
            if let Some(&address) = [pair.0, pair.1].iter().find(|&&address| address % 16 != 0) {
                return Err(misaligned("key digit", address));
            }
            keys.push(pair);
        }
        let input_address = self.kernels.read_address(input.device_buffer())?;
        let gaussian = is_gaussian(q_p.ring().transform());
        let stride = self.stride();
        let limbs = self.q_p.len();
        let mut chunk = max_chunk_digits.min(digits).min((MAX_GRID_Y / limbs).max(1));
        let mut accumulators = self.kernels.alloc_for_kernels(2 * stride)?;
        let accumulators_address = self.kernels.write_address(&mut accumulators)?;
        let mut start = 0;
        while start < digits {
            let count = chunk.min(digits - start);
            if !gaussian
                && !unfused_inner_product_forced()
                && DevicePolyBatch::forward_inner_product_supported(q_p, count)
            {
                let target = poly_cuda::InnerProductKeys {
                    keys: &keys[start..start + count],
                    output: accumulators_address,
                    accumulate: start > 0,
                    own: own.map(|(source, digit_limbs)| poly_cuda::OwnLimbs {
                        source,
                        first_digit: start,
                        digit_limbs,
                        limbs_q: self.q.len(),
                    }),
                    special,
                };
                // SAFETY: one key pair per digit of the chunk (rings checked: q u P at this
                // degree, 16-byte aligned), two accumulator polynomials over q u P apart from
                // the keys and the input; all on this device, alive until the work has run
                // (the keys are borrowed for this call, the accumulators returned); the own
                // limbs' source, when given, is the input's evaluations over q (checked by
                // own_limbs), borrowed for this call.
                match unsafe {
                    self.extended_digits_inner_product(input, start, count, extension, q_p, input_address, target)
                } {
                    Ok(()) => {
                        start += count;
                        continue;
                    }
                    Err(GpuRnsError::Gpu(GpuError::OutOfMemory { .. })) if count > 1 => {
                        chunk = count / 2;
                        continue;
                    }
                    Err(error) => return Err(error),
                }
            }
            let transformed = match self.extended_digits(input, start, count, extension, q_p, input_address) {
                Ok(batch) => batch,
                Err(GpuRnsError::Gpu(GpuError::OutOfMemory { .. })) if count > 1 => {
                    chunk = count / 2;
                    continue;
                }
                Err(error) => return Err(error),
            };
            let extended_address = self.kernels.read_address(transformed.device_buffer())?;
            // SAFETY: `count` transformed polynomials, one key polynomial per address (rings
            // checked: q u P at this degree), two accumulator polynomials; device allocations
            // are 256-byte aligned and every polynomial has an even number of words (N >= 2^10
            // for a ring context; the special buffer, when given, holds 2 l N words, checked). The
            // first chunk writes the accumulators, the others add.
            unsafe {
                self.inner_product_raw(
                    gaussian,
                    extended_address,
                    &keys[start..start + count],
                    start > 0,
                    accumulators_address,
                    special,
                )
            }?;
            start += count;
        }
        Ok(DevicePolyBatch::from_device_buffer(q_p, 2, accumulators)?)
    }

    /// The digits `start .. start + count` of `input` extended to `q u P` (ModUp) and forward
    /// transformed, as one batch. Over an NTT ring a run of consecutive one-prime digits is
    /// extended by the transform's first pass (`DevicePolyBatch::forward_extending_limbs`: no
    /// ModUp kernel and no coefficient-form copy); otherwise ModUp kernels, then the transform.
    fn extended_digits(
        &self,
        input: &DevicePoly<Coeff>,
        start: usize,
        count: usize,
        extension: Extension,
        q_p: &GpuContext,
        input_address: u64,
    ) -> Result<DevicePolyBatch<Eval>> {
        if let Some(first_limb) = self.first_pass_extension(start, count, q_p)? {
            let centered = extension == Extension::Exact;
            return Ok(DevicePolyBatch::<Eval>::forward_extending_limbs(q_p, input, first_limb, count, centered)?);
        }
        Ok(self.mod_up_batch(start, count, extension, q_p, input_address, true)?.forward()?)
    }

    /// The first limb of the digits `start .. start + count` when the transform's first pass
    /// can extend them (consecutive one-prime digits over an NTT ring, unless the knob
    /// `HEGPU_KS_SEPARATE_MOD_UP` asks for the ModUp kernel); `None` otherwise.
    fn first_pass_extension(&self, start: usize, count: usize, q_p: &GpuContext) -> Result<Option<usize>> {
        let (first, _) = self.digit(start)?;
        let mut one_prime_run = true;
        for (offset, digit) in (start..start + count).enumerate() {
            let (range, _) = self.digit(digit)?;
            one_prime_run &= range.len() == 1 && range.start == first.start + offset;
        }
        let fused = one_prime_run && q_p.ring().transform() == TransformKind::Ntt && !separate_mod_up_forced();
        Ok(fused.then_some(first.start))
    }

    /// The digits `start .. start + count` of `input` (at `input_address`) extended to `q u P`
    /// by the ModUp kernels, in coefficient form (the digits' own limbs left unwritten unless
    /// `copy_own`).
    fn mod_up_batch(
        &self,
        start: usize,
        count: usize,
        extension: Extension,
        q_p: &GpuContext,
        input_address: u64,
        copy_own: bool,
    ) -> Result<DevicePolyBatch<Coeff>> {
        let mut extended = self.kernels.alloc_for_kernels(count * self.stride())?;
        let extended_address = self.kernels.write_address(&mut extended)?;
        // SAFETY: `extended` holds `count` polynomials over q u P; `input` is over q (the
        // caller checked its ring) at `input_address`.
        unsafe { self.mod_up_digits_raw(start..start + count, extension, input_address, extended_address, copy_own) }?;
        Ok(DevicePolyBatch::<Coeff>::from_device_buffer(q_p, count, extended)?)
    }

    /// [`extended_digits`](Self::extended_digits) with the inner product in the transform's
    /// last pass: the extended, transformed digits are never stored, their products with the
    /// key digits are summed into `target.output`.
    ///
    /// # Safety
    /// As [`DevicePolyBatch::forward_extending_limbs_inner_product`] for `target`.
    #[allow(clippy::too_many_arguments)]
    unsafe fn extended_digits_inner_product(
        &self,
        input: &DevicePoly<Coeff>,
        start: usize,
        count: usize,
        extension: Extension,
        q_p: &GpuContext,
        input_address: u64,
        target: poly_cuda::InnerProductKeys<'_>,
    ) -> Result<()> {
        if let Some(first_limb) = self.first_pass_extension(start, count, q_p)? {
            let centered = extension == Extension::Exact;
            // SAFETY: forwarded from the caller.
            return Ok(unsafe {
                DevicePolyBatch::<Eval>::forward_extending_limbs_inner_product(
                    q_p, input, first_limb, count, centered, target,
                )
            }?);
        }
        let extended = self.mod_up_batch(start, count, extension, q_p, input_address, target.own.is_none())?;
        // SAFETY: forwarded from the caller.
        Ok(unsafe { extended.forward_inner_product(target) }?)
    }

    /// [`KeySwitchContext::mod_down`] on the device: `input` over `q u P`, `output` over `q`.
    /// Errors: [`RnsError::LengthMismatch`] or
    /// [`GpuError::WrongContext`](poly_cuda::GpuError::WrongContext); `output` is untouched then.
    pub fn mod_down<I: DevicePtr<u64>, O: DevicePtrMut<u64>>(&self, input: &I, output: &mut O) -> Result<()> {
        check_len("ModDown input", self.stride(), input.len())?;
        check_len("ModDown output", self.q.len() * self.degree, output.len())?;
        let (input, output) = (self.kernels.read_address(input)?, self.kernels.write_address(output)?);
        // SAFETY: lengths checked above; both buffers are on this stream.
        unsafe { self.mod_down_raw(input, output) }
    }

    /// [`KeySwitchContext::mod_up_poly`] on the device: `input` over `q`, the result over
    /// `q u P` (the ring of `q_p`).
    ///
    /// Errors: [`RnsError::DigitOutOfRange`]; [`RnsError::ContextMismatch`] unless `input`'s ring
    /// is `q` and `q_p`'s is `q u P` at this degree;
    /// [`GpuError::WrongContext`](poly_cuda::GpuError::WrongContext) for another device.
    pub fn mod_up_poly(
        &self,
        input: &DevicePoly<Coeff>,
        digit: usize,
        extension: Extension,
        q_p: &GpuContext,
    ) -> Result<DevicePoly<Coeff>> {
        self.digit(digit)?;
        check_poly(&self.kernels, input.context(), &self.q, self.degree, "ModUp input")?;
        check_poly(&self.kernels, q_p, &self.q_p, self.degree, "ModUp output")?;
        let mut output = self.kernels.alloc_for_kernels(self.stride())?;
        let input_address = self.kernels.read_address(input.device_buffer())?;
        let output_address = self.kernels.write_address(&mut output)?;
        // SAFETY: the kernel writes all k + l limbs of `output` (see mod_up_raw); the rings
        // were checked.
        unsafe { self.mod_up_raw(digit, extension, input_address, output_address, true) }?;
        Ok(DevicePoly::from_device_buffer(q_p, output)?)
    }

    /// [`KeySwitchContext::mod_down_poly`] on the device: `input` over `q u P`, the result
    /// `round(x / P)` over `q`. Errors as [`mod_up_poly`](Self::mod_up_poly) (no digit).
    pub fn mod_down_poly(&self, input: &DevicePoly<Coeff>, q: &GpuContext) -> Result<DevicePoly<Coeff>> {
        check_poly(&self.kernels, input.context(), &self.q_p, self.degree, "ModDown input")?;
        check_poly(&self.kernels, q, &self.q, self.degree, "ModDown output")?;
        let mut output = self.kernels.alloc_for_kernels(self.q.len() * self.degree)?;
        let input_address = self.kernels.read_address(input.device_buffer())?;
        let output_address = self.kernels.write_address(&mut output)?;
        // SAFETY: the kernel writes all k limbs of `output`; the rings were checked.
        unsafe { self.mod_down_raw(input_address, output_address) }?;
        Ok(DevicePoly::from_device_buffer(q, output)?)
    }

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
        let outputs = if poly_cuda::graph::replay_enabled(self.degree) && !is_gaussian(ring_qp.ring().transform()) {
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
    /// and errors as those two (and a [`RnsError::ContextMismatch`] for an `input_eval` not over
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
            let mut special = self.kernels.alloc_for_kernels(2 * self.p.len() * self.degree)?;
            let sums =
                self.accumulate_in_chunks(input, input_eval, key, extension, ring_qp, chunk, Some(&mut special))?;
            let [b, a] = self.mod_down_eval_split(&sums, special, ring_p, ring_q, error_scale, addends)?;
            Ok(vec![b.into_device_buffer(), a.into_device_buffer()])
        };
        let replay = poly_cuda::graph::replay_enabled_up_to(self.degree, Self::EVAL_REPLAY_MAX_DEGREE);
        let outputs = if replay && !is_gaussian(ring_qp.ring().transform()) {
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
    fn replayed(
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

    /// ModDown of both key-switching sums in the evaluation representation, each added to an
    /// optional addend: `[addend_0 + F(E ModDown(E^-1 s_0)), addend_1 + F(E ModDown(E^-1 s_1))]`
    /// over `q` (`ring_q`), `F` the forward transform and `s_k` the sums of
    /// [`key_switch_accumulate`](Self::key_switch_accumulate) (evaluation representation over
    /// `q u P`), `E = error_scale` (1, or the scale of [`with_error_scale`](Self::with_error_scale)).
    /// Only the `P` limbs go back to coefficients: they are copied out, inverse transformed
    /// over `ring_p` (the special primes), converted exactly to `q` (the conversion's scale
    /// times `E^-1`) and forward transformed, and `addend + (s_q - E r) P^-1` is formed (in the
    /// transform's last pass where [`DevicePolyBatch::forward_mod_down_supported`] says so, by a
    /// kernel of its own otherwise or with `HEGPU_KS_SEPARATE_MOD_DOWN=1`): the forward
    /// transform of the coefficient ModDown (linear per prime), word for word. NTT rings only
    /// (the host-side composition serves the DGTs).
    ///
    /// Errors: [`RnsError::ContextMismatch`] unless `sums` is over `q u P`, `ring_q` is `q`,
    /// `ring_p` is `P` and the addends are over `q`; [`RnsError::LengthMismatch`] unless
    /// `sums` holds two polynomials; [`RnsError::InvalidParameter`] for an `error_scale` other
    /// than 1 and this context's;
    /// [`GpuError::WrongContext`](poly_cuda::GpuError::WrongContext) for another device.
    /// Nothing is queued on an input error; the inputs are never changed.
    pub fn mod_down_eval(
        &self,
        sums: &DevicePolyBatch<Eval>,
        ring_p: &GpuContext,
        ring_q: &GpuContext,
        error_scale: u64,
        addends: [Option<&DevicePoly<Eval>>; 2],
    ) -> Result<[DevicePoly<Eval>; 2]> {
        self.check_mod_down(sums, ring_p, ring_q, error_scale, addends)?;
        let (n, k, l) = (self.degree, self.q.len(), self.p.len());
        let stride = self.stride();
        // The P limbs of both sums, [2][l][N].
        let stream = self.kernels.stream();
        let mut special = self.kernels.alloc_for_kernels(2 * l * n)?;
        for poly in 0..2 {
            let from = poly * stride + k * n;
            let source = sums.device_buffer().slice(from..from + l * n);
            let mut destination = special.slice_mut(poly * l * n..(poly + 1) * l * n);
            stream
                .memcpy_dtod(&source, &mut destination)
                .map_err(|e| GpuError::Driver { call: "cuMemcpyDtoDAsync", reason: e.to_string() })?;
        }
        self.mod_down_eval_split(sums, special, ring_p, ring_q, error_scale, addends)
    }

    /// The checks of [`mod_down_eval`](Self::mod_down_eval) (rings, sums, addends, error
    /// scale), and the converter `P -> q` of that error scale.
    fn check_mod_down(
        &self,
        sums: &DevicePolyBatch<Eval>,
        ring_p: &GpuContext,
        ring_q: &GpuContext,
        error_scale: u64,
        addends: [Option<&DevicePoly<Eval>>; 2],
    ) -> Result<&ConverterLayout> {
        check_poly(&self.kernels, sums.context(), &self.q_p, self.degree, "ModDown input")?;
        check_poly(&self.kernels, ring_q, &self.q, self.degree, "ModDown output")?;
        check_poly(&self.kernels, ring_p, &self.p, self.degree, "ModDown special ring")?;
        check_len("ModDown sums", 2, sums.len())?;
        for addend in addends.iter().flatten() {
            check_poly(&self.kernels, addend.context(), &self.q, self.degree, "ModDown addend")?;
        }
        let converter = match (error_scale, &self.p_to_q_scaled) {
            (1, _) => &self.p_to_q,
            (e, Some((scaled_e, layout))) if e == *scaled_e => layout,
            (e, _) => {
                return Err(RnsError::InvalidParameter {
                    name: "error scale",
                    value: e,
                    reason: "must be 1 or the scale these tables were prepared with",
                }
                .into());
            }
        };
        Ok(converter)
    }

    /// [`mod_down_eval`](Self::mod_down_eval) of sums whose special limbs are in `special`
    /// (`[2][l][N]`, evaluation representation; consumed) rather than in `sums` (whose limbs of
    /// `q` are read). Errors as `mod_down_eval`, and [`RnsError::LengthMismatch`] for a
    /// `special` buffer of another length; nothing is queued then.
    fn mod_down_eval_split(
        &self,
        sums: &DevicePolyBatch<Eval>,
        special: CudaSlice<u64>,
        ring_p: &GpuContext,
        ring_q: &GpuContext,
        error_scale: u64,
        addends: [Option<&DevicePoly<Eval>>; 2],
    ) -> Result<[DevicePoly<Eval>; 2]> {
        let converter = self.check_mod_down(sums, ring_p, ring_q, error_scale, addends)?;
        check_len("ModDown special sums", 2 * self.p.len() * self.degree, special.len())?;
        let (n, k, l) = (self.degree, self.q.len(), self.p.len());
        let stride = self.stride();
        let stream = self.kernels.stream();
        let special = DevicePolyBatch::<Eval>::from_device_buffer(ring_p, 2, special)?.inverse()?;
        let special_address = self.kernels.read_address(special.device_buffer())?;
        let mut remainder = self.kernels.alloc_for_kernels(2 * k * n)?;
        let remainder_address = self.kernels.write_address(&mut remainder)?;
        let members: Vec<(u64, u64)> = (0..2)
            .map(|poly| (special_address + 8 * (poly * l * n) as u64, remainder_address + 8 * (poly * k * n) as u64))
            .collect();
        let mut params = converter.params(&self.tables, n, k);
        (params.input, params.output) = members[0];
        // SAFETY: a converter P -> q of this context; member `poly` reads the l limbs of
        // polynomial `poly` of `special` ([2][l][N]) and writes all k limbs of polynomial
        // `poly` of `remainder` ([2][k][N]); both buffers are on this stream.
        unsafe { self.kernels.convert_batch(ConvertKernel::Exact, params, &members) }?;
        let remainder = DevicePolyBatch::<Coeff>::from_device_buffer(ring_q, 2, remainder)?;
        let mut out0 = self.kernels.alloc_for_kernels(k * n)?;
        let mut out1 = self.kernels.alloc_for_kernels(k * n)?;
        let addend_address = |addend: Option<&DevicePoly<Eval>>| -> Result<u64> {
            addend.map_or(Ok(0), |a| self.kernels.read_address(a.device_buffer()))
        };
        if DevicePolyBatch::<Coeff>::forward_mod_down_supported(ring_q, 2) && !separate_mod_down_forced() {
            let target = poly_cuda::ModDownTarget {
                sums: self.kernels.read_address(sums.device_buffer())?,
                sums_poly_words: stride,
                addends: [addend_address(addends[0])?, addend_address(addends[1])?],
                outputs: [self.kernels.write_address(&mut out0)?, self.kernels.write_address(&mut out1)?],
                p_inv: [self.tables.at(self.p_inv_q), self.tables.at(self.p_inv_q_shoup)],
                e_p_inv: match error_scale {
                    1 => [self.tables.at(self.p_inv_q), self.tables.at(self.p_inv_q_shoup)],
                    _ => [self.tables.at(self.e_p_inv_q.0), self.tables.at(self.e_p_inv_q.1)],
                },
            };
            // SAFETY: `sums` holds two polynomials over q u P (checked), `stride` words apart,
            // whose first k limbs are q's (the transform's primes); the addends (checked: over
            // q) and the fresh outputs are polynomials over q; `p_inv` and `e_p_inv` hold k
            // words each of this context's tables (E = error_scale, checked above). All live on this device until the work has run
            // (the outputs are returned, the others borrowed for this call and the tables
            // owned by self).
            unsafe { remainder.forward_mod_down(&target) }?;
            return Ok([DevicePoly::from_device_buffer(ring_q, out0)?, DevicePoly::from_device_buffer(ring_q, out1)?]);
        }
        let remainder = remainder.forward()?;
        let params = ModDownEvalParams {
            sums: self.kernels.read_address(sums.device_buffer())?,
            remainder: self.kernels.read_address(remainder.device_buffer())?,
            addend0: addend_address(addends[0])?,
            addend1: addend_address(addends[1])?,
            out0: self.kernels.write_address(&mut out0)?,
            out1: self.kernels.write_address(&mut out1)?,
            moduli: self.tables.at(self.q_p_moduli),
            p_inv: self.tables.at(self.p_inv_q),
            p_inv_shoup: self.tables.at(self.p_inv_q_shoup),
            error_scale,
            log_n: n.trailing_zeros(),
            limbs_q: k as u32,
            limbs_qp: self.q_p.len() as u32,
            unused: 0,
        };
        let blocks = (k * n).div_ceil(THREADS as usize);
        let config = LaunchConfig { grid_dim: (blocks as u32, 2, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 };
        let mut builder = self.batch.keyswitch_mod_down_eval.builder(stream);
        builder.arg_pod(&params);
        // SAFETY: matches `keyswitch_mod_down_eval(ModDownEvalParams)` of kernels/keyswitch.cu
        // (the struct mirrored field by field, size asserted above): `sums` holds [2][k + l][N]
        // words (checked: two polynomials over q u P), `remainder` [2][k][N], each addend (or
        // null) and output k N; the moduli table's first k triples are q's (q u P lists q
        // first), `p_inv`/`p_inv_shoup` k words each. N is a power of two (a ring degree), so
        // log_n is exact; the grid covers the k N words of both outputs. Every buffer is on
        // this stream; the outputs are fresh and written whole before they are returned.
        unsafe { builder.launch(config) }?;
        Ok([DevicePoly::from_device_buffer(ring_q, out0)?, DevicePoly::from_device_buffer(ring_q, out1)?])
    }

    /// [`mod_down_poly`](Self::mod_down_poly) of every polynomial of a batch over `q u P`
    /// (e.g. the two key-switching sums after one inverse transform of both), in order.
    /// Errors as `mod_down_poly`.
    pub fn mod_down_batch(&self, input: &DevicePolyBatch<Coeff>, q: &GpuContext) -> Result<Vec<DevicePoly<Coeff>>> {
        check_poly(&self.kernels, input.context(), &self.q_p, self.degree, "ModDown input")?;
        check_poly(&self.kernels, q, &self.q, self.degree, "ModDown output")?;
        let input_address = self.kernels.read_address(input.device_buffer())?;
        let mut outputs = Vec::with_capacity(input.len());
        let mut pairs = Vec::with_capacity(input.len());
        for index in 0..input.len() {
            let mut output = self.kernels.alloc_for_kernels(self.q.len() * self.degree)?;
            let at = input_address + 8 * (index * self.stride()) as u64;
            pairs.push((at, self.kernels.write_address(&mut output)?));
            outputs.push(output);
        }
        for chunk in pairs.chunks(CONVERT_BATCH) {
            // SAFETY: each pair is polynomial `index` of the batch (its ring was checked:
            // q u P) and a fresh output of k limbs, which the kernel writes whole.
            unsafe { self.mod_down_batch_raw(chunk) }?;
        }
        outputs.into_iter().map(|output| Ok(DevicePoly::from_device_buffer(q, output)?)).collect()
    }
}
