//! Device tables and kernel launches of `kernels/rns.cu`: the `#[repr(C)]` mirrors of the
//! kernels' parameter structs (`bytemuck::Pod`, passed by value), one uploaded table buffer per
//! context, and the launch geometry.

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use modarith::Modulus;
use poly_cuda::cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig};
use poly_cuda::kernel::{THREADS, address, address_mut, linear_config};
use poly_cuda::{GpuDevice, GpuError};

use super::Result;
use crate::BaseConverter;
use crate::word::PlainModulus;

// Threads per block of every kernel of `kernels/rns.cu`: `poly_cuda::kernel::THREADS`, which
// `RNS_THREADS` there equals.
/// The conversion kernels aim for at least this many blocks per launch (an H100 holds about
/// 1000 blocks of 256 threads at once), splitting the output limbs into groups when the
/// coefficient tiles alone are too few.
pub(crate) const TARGET_BLOCKS: usize = 2048;
/// Fewest output limbs per block (each block loads and scales its tile once for its group).
const MIN_GROUP: usize = 4;
/// Words of shared memory a conversion block aims to stay within (32 KB).
const SHARED_WORDS: usize = 4096;
/// Tiles of the conversion kernels: 2^4 ..= 2^6 coefficients (THREADS / 16 ..= THREADS / 4).
const MIN_LOG_TILE: u32 = 4;
const MAX_LOG_TILE: u32 = 6;
/// The fewest outputs (output limbs times tile coefficients) a conversion block takes (where the
/// output limbs allow) for a launch of `tiles` coefficient tiles: the device's
/// [`RnsTuning::min_block_outputs`](poly_cuda::RnsTuning::min_block_outputs) where set, else
/// this choice. The second phase gives each thread 4 outputs, so 1024 keeps all
/// 256 threads busy (grouping for [`TARGET_BLOCKS`] alone left 64 of them working at
/// N = 2^15 with 16 output limbs); with 1024 tiles or more, 2048 (two items per thread, half
/// the blocks reloading the tile). H100, 2026-11-24, same call, against no minimum: BFV
/// Mul+Relin at 32768 898 -> 692 us, at 65536 hybrid 2124 -> 1971; 4096..16384 within noise
/// or better (docs/performance.md).
fn min_block_outputs(tuned: Option<usize>, tiles: usize) -> usize {
    tuned.unwrap_or(if tiles >= 1024 { 2048 } else { 1024 })
}

/// Largest grid of the grid-stride kernels.
pub(crate) const MAX_STRIDE_BLOCKS: usize = 1 << 16;

/// Mirror of `ConvertParams` in `kernels/rns.cu`: device addresses as `u64`, 0 for null.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, Pod, Zeroable)]
pub(crate) struct ConvertParams {
    pub input: u64,
    pub redundant_input: u64,
    pub extra: u64,
    pub output: u64,
    pub copy: u64,
    pub from: u64,
    pub scale: u64,
    pub scale_shoup: u64,
    pub to: u64,
    pub table: u64,
    /// `split` only: the table as split factors (`HostTables::push_split`), else 0.
    pub table_split: u64,
    pub product: u64,
    pub product_shoup: u64,
    pub fraction_hi: u64,
    pub fraction_lo: u64,
    pub epi_a: u64,
    pub epi_a_shoup: u64,
    pub epi_b: u64,
    pub epi_b_shoup: u64,
    pub redundant_w: u64,
    pub redundant_w_shoup: u64,
    pub n: u64,
    pub k: u32,
    pub l: u32,
    pub skip_start: u32,
    pub skip_len: u32,
    pub log_tile: u32,
    pub group: u32,
    /// 1 where every inner product stays below 2^128 ([`narrow_sums`]): 128-bit sums.
    pub narrow: u32,
    /// 1 where every factor is below 2^40 ([`split_products`]): the products on the FP64 pipe
    /// (not for HPS scaling, whose kernel ignores it); 2: the same sums on the FP64 tensor
    /// cores, set at launch where the device's tuning asks for them
    /// ([`RnsTuning::tensor_core_products`](poly_cuda::RnsTuning::tensor_core_products)).
    pub split: u32,
    /// Batches ([`RnsKernels::convert_batch`]): member `z` reads `batch_input[z]` and writes
    /// `batch_output[z]`; `redundant_input`, `extra` and `copy` keep their offsets from
    /// `input` and `output`, which are member 0's.
    pub batch_input: [u64; CONVERT_BATCH],
    pub batch_output: [u64; CONVERT_BATCH],
}

/// Polynomials one conversion launch takes at most (`CONVERT_BATCH` in `kernels/rns.cu`).
pub(crate) const CONVERT_BATCH: usize = 4;

/// ModUp digits one conversion launch takes at most (`CONVERT_DIGITS` in `kernels/rns.cu`).
pub(crate) const CONVERT_DIGITS: usize = 4;

/// Mirror of `DigitConvertParams` in `kernels/rns.cu`: one conversion per ModUp digit.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, Pod, Zeroable)]
pub(crate) struct DigitConvertParams {
    pub digit: [ConvertParams; CONVERT_DIGITS],
}

/// Mirror of `MontgomeryParams` in `kernels/rns.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, Pod, Zeroable)]
pub(crate) struct MontgomeryParams {
    pub input: u64,
    pub output: u64,
    pub moduli: u64,
    pub q_mod: u64,
    pub q_mod_shoup: u64,
    pub m_tilde_inv: u64,
    pub m_tilde_inv_shoup: u64,
    pub m_tilde: u64,
    pub neg_q_inv: u64,
    pub neg_q_inv_shoup: u64,
    pub n: u64,
    pub l: u32,
    pub unused: u32,
}

/// Mirror of `BehzDecryptParams` in `kernels/rns.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, Pod, Zeroable)]
pub(crate) struct BehzDecryptParams {
    pub input: u64,
    pub addend: u64,
    pub output: u64,
    pub q: u64,
    pub scale: u64,
    pub scale_shoup: u64,
    pub row_t: u64,
    pub row_t_shoup: u64,
    pub row_gamma: u64,
    pub row_gamma_shoup: u64,
    pub t: [u64; 3],
    pub gamma: [u64; 3],
    pub gamma_inv_t: u64,
    pub gamma_inv_t_shoup: u64,
    pub n: u64,
    pub k: u32,
    /// Threads per coefficient: 1, 2, 4 or 8 ([`decrypt_lanes`]).
    pub lanes: u32,
}

/// Mirror of `HpsDecryptParams` in `kernels/rns.cu`.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, Pod, Zeroable)]
pub(crate) struct HpsDecryptParams {
    pub input: u64,
    pub addend: u64,
    pub q: u64,
    pub output: u64,
    pub integer: u64,
    pub integer_shoup: u64,
    pub fraction_hi: u64,
    pub fraction_lo: u64,
    pub t: [u64; 3],
    pub n: u64,
    pub k: u32,
    /// Threads per coefficient: 1, 2, 4 or 8 ([`decrypt_lanes`]).
    pub lanes: u32,
}

// The kernels read these structs byte for byte, laid out as the C structs of kernels/rns.cu
// (same field order and types; u64 for pointers): their sizes are those of the C structs
// (`Pod` already rules out padding).
const _: () = assert!(size_of::<ConvertParams>() == 22 * 8 + 8 * 4 + 2 * CONVERT_BATCH * 8);
const _: () = assert!(size_of::<DigitConvertParams>() == CONVERT_DIGITS * size_of::<ConvertParams>());
const _: () = assert!(size_of::<MontgomeryParams>() == 11 * 8 + 2 * 4);
const _: () = assert!(size_of::<BehzDecryptParams>() == 19 * 8 + 2 * 4);
const _: () = assert!(size_of::<HpsDecryptParams>() == 12 * 8 + 2 * 4);

/// `{p, floor(2^128 / p) high, low}`: `modarith::Modulus` as the kernels read it.
pub(crate) fn modulus_words(m: &Modulus) -> [u64; 3] {
    let (hi, lo) = m.barrett_constant();
    [m.value(), hi, lo]
}

/// The same triple for a plaintext modulus `t` (any `t` in `[2, 2^62)`: Barrett reduction
/// with `floor(2^128 / t)` needs no primality).
pub(crate) fn plain_modulus_words(t: PlainModulus) -> [u64; 3] {
    let t = t.value();
    // floor(2^128 / t) = floor((2^128 - 1) / t), plus one when t divides 2^128.
    let wide = t as u128;
    let mut quotient = u128::MAX / wide;
    if u128::MAX % wide == wide - 1 {
        quotient += 1;
    }
    [t, (quotient >> 64) as u64, quotient as u64]
}

/// Tables of one context gathered on the host before their single upload.
#[derive(Debug, Default)]
pub(crate) struct HostTables {
    words: Vec<u64>,
}

impl HostTables {
    /// Appends `values`; returns their offset in words.
    pub(crate) fn push(&mut self, values: &[u64]) -> usize {
        let offset = self.words.len();
        self.words.extend_from_slice(values);
        offset
    }

    /// Appends each of `values` (every one below 2^40) as its 20-bit parts, the high one first,
    /// as the bits of two doubles (`wide_sum::split_factor` in kernels/include/wide_sum.cuh), at
    /// an even offset (16-byte aligned: the kernels load the pairs as `double2`); returns it.
    pub(crate) fn push_split(&mut self, values: &[u64]) -> usize {
        if self.words.len() % 2 == 1 {
            self.words.push(0);
        }
        let offset = self.words.len();
        for &v in values {
            debug_assert!(v < 1 << 40);
            self.words.extend_from_slice(&[((v >> 20) as f64).to_bits(), ((v & 0xF_FFFF) as f64).to_bits()]);
        }
        offset
    }

    /// Appends the moduli as `{p, barrett_hi, barrett_lo}` triples.
    pub(crate) fn push_moduli(&mut self, moduli: &[Modulus]) -> usize {
        let offset = self.words.len();
        for m in moduli {
            self.words.extend_from_slice(&modulus_words(m));
        }
        offset
    }

    /// Uploads everything to `device` (one allocation).
    pub(crate) fn upload(self, device: &GpuDevice) -> Result<DeviceTables> {
        // A context always has tables; keep the buffer non-empty regardless.
        let words = if self.words.is_empty() { vec![0] } else { self.words };
        let buffer = device
            .stream()
            .clone_htod(&words)
            .map_err(|e| GpuError::Driver { call: "cuMemcpyHtoDAsync (rns tables)", reason: e.to_string() })?;
        let base = address(&buffer, device.stream());
        Ok(DeviceTables { base, buffer })
    }
}

/// One context's tables on the device; offsets from [`HostTables`] turn into addresses.
#[derive(Debug)]
pub(crate) struct DeviceTables {
    base: u64,
    // Owns the memory `base` points into; freed (stream-ordered) when the context is dropped.
    #[allow(dead_code)]
    buffer: CudaSlice<u64>,
}

impl DeviceTables {
    /// The device address of the word at `offset`.
    pub(crate) fn at(&self, offset: usize) -> u64 {
        self.base + 8 * offset as u64
    }
}

/// Where the tables of one [`BaseConverter`] sit in a [`HostTables`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct ConverterLayout {
    pub from: usize,
    pub scale: usize,
    pub scale_shoup: usize,
    pub to: usize,
    /// The inner-product rows (their Shoup companions are not needed: the kernels sum full
    /// products).
    pub table: usize,
    /// The rows split for the FP64 products, where [`split_products`] holds.
    pub table_split: Option<usize>,
    pub product: usize,
    pub product_shoup: usize,
    pub fraction_hi: usize,
    pub fraction_lo: usize,
    /// Source limbs.
    pub k: usize,
    /// Rows of the table (target limbs, redundant rows included).
    pub rows: usize,
    /// [`narrow_sums`] of the two bases.
    pub narrow: u32,
    /// [`split_products`] of the two bases.
    pub split: u32,
}

/// 1 when the conversion kernel may sum in 128 bits: every inner product of `k` canonical
/// residues below `max_in` with table words below `max_out`, plus the rounded start of HPS
/// scaling (below `(k + 1) 2^62`), stays below 2^128; else 0 (192-bit sums). Primes of up to 62
/// bits give 1 for `k <= 15`, and the 50-60-bit primes of the presets for hundreds of limbs.
pub(crate) fn narrow_sums(k: usize, max_in: u64, max_out: u64) -> u32 {
    let k = k as u128;
    let product = u128::from(max_in.saturating_sub(1)) * u128::from(max_out.saturating_sub(1));
    let bound = product.checked_mul(k).and_then(|sum| sum.checked_add((k + 1) << 62));
    u32::from(bound.is_some())
}

/// 1 when the conversion kernel may form its products on the FP64 pipe (`SumSplit` in
/// kernels/include/wide_sum.cuh): every canonical residue below `max_in` and table word below
/// `max_out` is below 2^40, so that with at most 2^11 terms each of its three sums stays below
/// 2^52 and every double is an exact integer; `k <= 64` keeps the split copy of the tile in
/// shared memory small; and with the smallest target modulus `min_out` of at least 29 bits the
/// sum, below `k 2^80 <= 2^86`, takes the one-word reduction (`modarith::reduce_short`: below
/// `2^(n+63)`). The presets' 36-40-bit BGV primes qualify.
pub(crate) fn split_products(k: usize, max_in: u64, max_out: u64, min_out: u64) -> u32 {
    u32::from(
        k <= SPLIT_MAX_LIMBS
            && max_in <= SPLIT_MAX_MODULUS
            && max_out <= SPLIT_MAX_MODULUS
            && min_out >= SPLIT_MIN_TARGET,
    )
}

/// The most source limbs of a conversion with FP64 products ([`split_products`]).
const SPLIT_MAX_LIMBS: usize = 64;
/// The largest modulus of a conversion with FP64 products: residues below 2^40, two 20-bit parts.
const SPLIT_MAX_MODULUS: u64 = 1 << 40;
/// The smallest target modulus of a conversion with FP64 products (29 bits or more).
const SPLIT_MIN_TARGET: u64 = 1 << 28;

/// Source limbs per coefficient of the transposed split tile of the tensor-core products
/// (`mma_stride` in kernels/rns.cu): `k` rounded up to a multiple of 4, plus 4 where that is a
/// multiple of 8 (a row of 64 bytes modulo 128: the MMAs' loads of it are free of bank
/// conflicts).
fn mma_stride(k: usize) -> usize {
    let rounded = k.next_multiple_of(4);
    if rounded.is_multiple_of(8) { rounded + 4 } else { rounded }
}

/// The smallest modulus of `moduli` (0 for none).
pub(crate) fn smallest(moduli: &[Modulus]) -> u64 {
    moduli.iter().map(Modulus::value).min().unwrap_or(0)
}

/// The largest modulus of `moduli` (0 for none).
pub(crate) fn largest(moduli: &[Modulus]) -> u64 {
    moduli.iter().map(Modulus::value).max().unwrap_or(0)
}

/// Sets `params`' tile and output group for its source limbs, coefficients and output limbs;
/// returns the grid's tiles and groups and the shared memory of one block, or `None` when
/// there is nothing to convert. Shared memory holds `(k + 2)` words per coefficient of the
/// tile: the largest tile of 16..=64 coefficients within 32 KB (33 KB for 255 or 256 source
/// limbs). The kernel needs THREADS / tile <= 16 threads per coefficient in phase 1b. (Tiles
/// of 128 and 256 for few source limbs measured slower on an H100: fewer blocks at small N.)
fn conversion_shape(
    params: &mut ConvertParams,
    min_outputs: Option<usize>,
    tensor_cores: bool,
) -> Option<(u32, u32, u32)> {
    let n = params.n as usize;
    let k = params.k as usize;
    let outputs = params.l as usize;
    if n == 0 || outputs == 0 {
        return None;
    }
    // With FP64 products the tile's y is also kept split: 2k more words per coefficient, or
    // 2 mma_stride(k) for the tensor cores' transposed copy.
    if tensor_cores && params.split == 1 {
        params.split = 2;
    }
    let per_coefficient = match params.split {
        0 => k + 2,
        1 => 3 * k + 2,
        _ => k + 2 + 2 * mma_stride(k),
    };
    let log_tile = (SHARED_WORDS / per_coefficient).max(1).ilog2().clamp(MIN_LOG_TILE, MAX_LOG_TILE);
    let tiles = n.div_ceil(1 << log_tile);
    let wanted_groups = TARGET_BLOCKS.div_ceil(tiles).max(1);
    let group = outputs
        .div_ceil(wanted_groups)
        .max(outputs.min(MIN_GROUP))
        .max(outputs.min(min_block_outputs(min_outputs, tiles) >> log_tile));
    let groups = outputs.div_ceil(group);
    params.log_tile = log_tile;
    params.group = group as u32;
    Some((tiles as u32, groups as u32, ((per_coefficient << log_tile) * 8) as u32))
}

impl ConverterLayout {
    /// Pushes the converter's tables (the source's punctured inverses as the scale).
    pub(crate) fn push(host: &mut HostTables, converter: &BaseConverter) -> Self {
        let from = converter.from_base();
        let (table, _) = converter.punctured_table();
        let (product, product_shoup) = converter.product_table();
        let (fraction_hi, fraction_lo) = converter.inverse_fractions();
        let to = converter.to_base().moduli();
        let split = split_products(from.len(), largest(from.moduli()), largest(to), smallest(to));
        Self {
            from: host.push_moduli(from.moduli()),
            scale: host.push(from.punctured_inverses()),
            scale_shoup: host.push(from.punctured_inverses_shoup()),
            to: host.push_moduli(converter.to_base().moduli()),
            table: host.push(table),
            table_split: (split != 0).then(|| host.push_split(table)),
            product: host.push(product),
            product_shoup: host.push(product_shoup),
            fraction_hi: host.push(fraction_hi),
            fraction_lo: host.push(fraction_lo),
            k: from.len(),
            rows: converter.to_base().len(),
            narrow: narrow_sums(from.len(), largest(from.moduli()), largest(converter.to_base().moduli())),
            split,
        }
    }

    /// The same converter with another per-limb scale (BEHZ folds `m~` or `t` into it).
    pub(crate) fn with_scale(self, host: &mut HostTables, scale: &[u64], scale_shoup: &[u64]) -> Self {
        Self { scale: host.push(scale), scale_shoup: host.push(scale_shoup), ..self }
    }

    /// Kernel parameters with this converter's tables, `outputs` output limbs (the first rows)
    /// and `n` coefficients per limb; no skipped output limbs. Buffers are left null.
    pub(crate) fn params(&self, tables: &DeviceTables, n: usize, outputs: usize) -> ConvertParams {
        ConvertParams {
            from: tables.at(self.from),
            scale: tables.at(self.scale),
            scale_shoup: tables.at(self.scale_shoup),
            to: tables.at(self.to),
            table: tables.at(self.table),
            table_split: self.table_split.map_or(0, |offset| tables.at(offset)),
            product: tables.at(self.product),
            product_shoup: tables.at(self.product_shoup),
            fraction_hi: tables.at(self.fraction_hi),
            fraction_lo: tables.at(self.fraction_lo),
            n: n as u64,
            k: self.k as u32,
            l: outputs as u32,
            skip_start: outputs as u32,
            narrow: self.narrow,
            split: self.split,
            ..ConvertParams::default()
        }
    }
}

poly_cuda::kernel_set! {
    /// The kernels of `kernels/rns.cu`, loaded once per device.
    pub(crate) struct RnsModule(hegpu_kernels::RNS) {
        rns_fast_convert,
        rns_exact_convert,
        rns_fast_convert_digits,
        rns_exact_convert_digits,
        rns_shenoy_kumaresan,
        rns_behz_extend,
        rns_behz_floor,
        rns_mod_down,
        rns_hps_scale,
        rns_fast_convert_mma,
        rns_exact_convert_mma,
        rns_fast_convert_digits_mma,
        rns_exact_convert_digits_mma,
        rns_shenoy_kumaresan_mma,
        rns_behz_extend_mma,
        rns_behz_floor_mma,
        rns_mod_down_mma,
        rns_behz_montgomery,
        rns_behz_decrypt,
        rns_hps_decrypt,
    }
}

/// The kernels of `kernels/rns.cu` and the streams of their device.
#[derive(Debug, Clone)]
pub(crate) struct RnsKernels {
    streams: Arc<poly_cuda::raw::DeviceStreams>,
    functions: Arc<RnsModule>,
    /// The device's [`RnsTuning::min_block_outputs`](poly_cuda::RnsTuning::min_block_outputs).
    min_block_outputs: Option<usize>,
    /// The device's [`RnsTuning::tensor_core_products`](poly_cuda::RnsTuning::tensor_core_products).
    tensor_cores: bool,
}

/// The conversion kernels (one template of `kernels/rns.cu` each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ConvertKernel {
    Fast,
    Exact,
    ShenoyKumaresan,
    BehzExtend,
    BehzFloor,
    ModDown,
    HpsScale,
}

impl RnsKernels {
    pub(crate) fn load(device: &GpuDevice) -> Result<Self> {
        Ok(Self {
            streams: Arc::clone(device.streams()),
            functions: device.kernel_set::<RnsModule>()?,
            min_block_outputs: device.tuning().rns.min_block_outputs,
            tensor_cores: device.tuning().rns.tensor_core_products,
        })
    }

    /// The stream the calling thread launches on (the device's, or its capture stream while
    /// the thread records a graph: `GpuDevice::capture_graph`).
    pub(crate) fn stream(&self) -> &Arc<CudaStream> {
        self.streams.current()
    }

    /// Whether `stream` is the stream these kernels run on (that of the device the tables
    /// were uploaded to).
    pub(crate) fn owns(&self, stream: &Arc<CudaStream>) -> bool {
        Arc::ptr_eq(self.streams.main(), stream) || Arc::ptr_eq(self.stream(), stream)
    }

    /// The device address of a buffer this context may read: it must live on this device's
    /// stream ([`GpuError::WrongContext`] otherwise).
    pub(crate) fn read_address<S: DevicePtr<u64>>(&self, buffer: &S) -> Result<u64> {
        if !self.owns(buffer.stream()) {
            return Err(GpuError::WrongContext.into());
        }
        Ok(address(buffer, self.stream()))
    }

    /// The device address of a buffer this context may write (same condition).
    pub(crate) fn write_address<S: DevicePtrMut<u64>>(&self, buffer: &mut S) -> Result<u64> {
        if !self.owns(buffer.stream()) {
            return Err(GpuError::WrongContext.into());
        }
        Ok(address_mut(buffer, self.stream()))
    }

    /// A fresh device buffer of `len` words that the caller's kernels fill completely.
    pub(crate) fn alloc_for_kernels(&self, len: usize) -> Result<CudaSlice<u64>> {
        // SAFETY: every caller launches kernels that write all `len` words before anything
        // reads the buffer (each says which in its comment).
        unsafe { self.stream().alloc::<u64>(len) }.map_err(|e| {
            if e.0 == poly_cuda::cudarc::driver::sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
                GpuError::OutOfMemory { bytes: len * 8 }.into()
            } else {
                GpuError::Driver { call: "cuMemAllocAsync (rns)", reason: e.to_string() }.into()
            }
        })
    }

    /// Queues a conversion kernel over `params.n` coefficients and `params.l` output limbs;
    /// fills in the tile and group geometry.
    ///
    /// # Safety
    /// Every address in `params` must point to live device memory of this context holding
    /// what `kernels/rns.cu` documents for that field (tables of `k` or `rows * k` words,
    /// buffers of the limbs they are read or written at), written or read only on this stream.
    pub(crate) unsafe fn convert(&self, kernel: ConvertKernel, params: ConvertParams) -> Result<()> {
        // SAFETY: forwarded to the caller (a batch of one: `input` and `output`).
        unsafe { self.convert_batch(kernel, params, &[]) }
    }

    /// Queues one conversion over a batch: `members` holds `(input, output)` device addresses
    /// of up to [`CONVERT_BATCH`] polynomials (none or one: `params`' own), each converted as
    /// `params` describes for its first; `params.input` and `params.output` must be the first
    /// member's (the kernel finds each member's other buffers at the same offsets).
    ///
    /// # Safety
    /// As [`convert`](Self::convert), for every member.
    pub(crate) unsafe fn convert_batch(
        &self,
        kernel: ConvertKernel,
        mut params: ConvertParams,
        members: &[(u64, u64)],
    ) -> Result<()> {
        if members.len() > CONVERT_BATCH || members.first().is_some_and(|&m| m != (params.input, params.output)) {
            return Err(crate::RnsError::InvalidParameter {
                name: "conversion batch",
                value: members.len() as u64,
                reason: "at most CONVERT_BATCH members, the first being the parameters' input and output",
            }
            .into());
        }
        for (z, &(input, output)) in members.iter().enumerate() {
            params.batch_input[z] = input;
            params.batch_output[z] = output;
        }
        let batch = members.len().max(1) as u32;
        let Some((tiles, groups, shared)) = conversion_shape(&mut params, self.min_block_outputs, self.tensor_cores)
        else {
            return Ok(());
        };
        let config =
            LaunchConfig { grid_dim: (tiles, groups, batch), block_dim: (THREADS, 1, 1), shared_mem_bytes: shared };
        let functions = &*self.functions;
        // `split` = 2 (set by conversion_shape): the tensor cores' kernels.
        let kernel = match (kernel, params.split == 2) {
            (ConvertKernel::Fast, false) => &functions.rns_fast_convert,
            (ConvertKernel::Fast, true) => &functions.rns_fast_convert_mma,
            (ConvertKernel::Exact, false) => &functions.rns_exact_convert,
            (ConvertKernel::Exact, true) => &functions.rns_exact_convert_mma,
            (ConvertKernel::ShenoyKumaresan, false) => &functions.rns_shenoy_kumaresan,
            (ConvertKernel::ShenoyKumaresan, true) => &functions.rns_shenoy_kumaresan_mma,
            (ConvertKernel::BehzExtend, false) => &functions.rns_behz_extend,
            (ConvertKernel::BehzExtend, true) => &functions.rns_behz_extend_mma,
            (ConvertKernel::BehzFloor, false) => &functions.rns_behz_floor,
            (ConvertKernel::BehzFloor, true) => &functions.rns_behz_floor_mma,
            (ConvertKernel::ModDown, false) => &functions.rns_mod_down,
            (ConvertKernel::ModDown, true) => &functions.rns_mod_down_mma,
            // HPS scaling has no split form (its sums start from a 128-bit fraction).
            (ConvertKernel::HpsScale, _) => &functions.rns_hps_scale,
        };
        let mut builder = kernel.builder(self.stream());
        builder.arg_pod(&params);
        // SAFETY: the argument is the kernel's one by-value ConvertParams; the caller vouches
        // for its addresses (every batch member's); the grid covers ceil(n / tile) tiles, every
        // output limb group and every member (grid z).
        unsafe { builder.launch(config) }?;
        Ok(())
    }

    /// Queues the conversions of up to [`CONVERT_DIGITS`] ModUp digits in one launch
    /// (`kernels/rns.cu` `rns_*_convert_digits`): `digits[z]` converts as [`convert`](Self::convert)
    /// would with it alone (its own tile and output groups; the grid covers the largest).
    /// Only the fast and exact conversions have this form.
    ///
    /// # Safety
    /// As [`convert`](Self::convert), for every digit's parameters.
    pub(crate) unsafe fn convert_digits(&self, kernel: ConvertKernel, digits: &[ConvertParams]) -> Result<()> {
        match kernel {
            ConvertKernel::Fast | ConvertKernel::Exact => {}
            _ => {
                return Err(crate::RnsError::InvalidParameter {
                    name: "conversion kernel",
                    value: 0,
                    reason: "only the fast and exact conversions convert several digits in one launch",
                }
                .into());
            }
        };
        if digits.is_empty() || digits.len() > CONVERT_DIGITS {
            return Err(crate::RnsError::InvalidParameter {
                name: "conversion digits",
                value: digits.len() as u64,
                reason: "between 1 and CONVERT_DIGITS digits a launch",
            }
            .into());
        }
        // One launch runs one kernel: the tensor cores' only where every digit takes them
        // (every factor below 2^40), else every digit takes the other kernel's form.
        // (A digit with nothing to convert is skipped below, whatever its factors.)
        let tensor_cores = self.tensor_cores && digits.iter().all(|p| p.split == 1 || p.n == 0 || p.l == 0);
        let mut all = DigitConvertParams::default();
        let (mut tiles, mut groups, mut shared) = (0, 0, 0);
        let mut used = 0;
        for params in digits {
            let mut params = *params;
            let Some((t, g, s)) = conversion_shape(&mut params, self.min_block_outputs, tensor_cores) else {
                continue;
            };
            // The kernel finds digit z's buffers through its batch slot z (see kernels/rns.cu).
            params.batch_input[used] = params.input;
            params.batch_output[used] = params.output;
            all.digit[used] = params;
            (tiles, groups, shared) = (tiles.max(t), groups.max(g), shared.max(s));
            used += 1;
        }
        if used == 0 {
            return Ok(());
        }
        let config = LaunchConfig {
            grid_dim: (tiles, groups, used as u32),
            block_dim: (THREADS, 1, 1),
            shared_mem_bytes: shared,
        };
        let function = match (kernel, tensor_cores) {
            (ConvertKernel::Fast, false) => &self.functions.rns_fast_convert_digits,
            (ConvertKernel::Fast, true) => &self.functions.rns_fast_convert_digits_mma,
            (_, false) => &self.functions.rns_exact_convert_digits,
            (_, true) => &self.functions.rns_exact_convert_digits_mma,
        };
        let mut builder = function.builder(self.stream());
        builder.arg_pod(&all);
        // SAFETY: the argument is the kernel's one by-value DigitConvertParams; the caller
        // vouches for every digit's addresses; grid z covers the digits, x and y every digit's
        // tiles and groups (a block past its digit's returns at once).
        unsafe { builder.launch(config) }?;
        Ok(())
    }

    /// Queues BEHZ S1 over `params.l * params.n` values.
    ///
    /// # Safety
    /// As [`convert`](Self::convert), for `MontgomeryParams`.
    pub(crate) unsafe fn montgomery(&self, params: MontgomeryParams) -> Result<()> {
        let mut builder = self.functions.rns_behz_montgomery.builder(self.stream());
        builder.arg_pod(&params);
        let config = stride_config(params.l as usize * params.n as usize);
        // SAFETY: forwarded to the caller; the kernel is grid-stride over l * n values.
        unsafe { builder.launch(config) }?;
        Ok(())
    }

    /// Queues BEHZ decryption over `params.n` coefficients.
    ///
    /// # Safety
    /// As [`convert`](Self::convert), for `BehzDecryptParams`.
    pub(crate) unsafe fn behz_decrypt(&self, params: BehzDecryptParams) -> Result<()> {
        let mut builder = self.functions.rns_behz_decrypt.builder(self.stream());
        builder.arg_pod(&params);
        // SAFETY: forwarded to the caller; `lanes` threads per coefficient, block-stride over n.
        let threads = (params.n as usize).saturating_mul(params.lanes.max(1) as usize);
        unsafe { builder.launch(stride_config(threads)) }?;
        Ok(())
    }

    /// Queues HPS decryption over `params.n` coefficients.
    ///
    /// # Safety
    /// As [`convert`](Self::convert), for `HpsDecryptParams`.
    pub(crate) unsafe fn hps_decrypt(&self, params: HpsDecryptParams) -> Result<()> {
        let mut builder = self.functions.rns_hps_decrypt.builder(self.stream());
        builder.arg_pod(&params);
        // SAFETY: forwarded to the caller; `lanes` threads per coefficient, block-stride over n.
        let threads = (params.n as usize).saturating_mul(params.lanes.max(1) as usize);
        unsafe { builder.launch(stride_config(threads)) }?;
        Ok(())
    }
}

/// Threads per coefficient of the decryption kernels (`decrypt_coefficients` in
/// kernels/rns.cu) for `k` limbs: enough that each takes about one to four limbs, at most 8.
pub(crate) fn decrypt_lanes(k: usize) -> u32 {
    match k {
        0..=1 => 1,
        2 => 2,
        3..=4 => 4,
        _ => 8,
    }
}

/// The grid of the grid-stride kernels over `items` threads.
fn stride_config(items: usize) -> LaunchConfig {
    linear_config(items, MAX_STRIDE_BLOCKS)
}

#[cfg(test)]
mod tests {
    use super::{SPLIT_MAX_LIMBS, SPLIT_MAX_MODULUS, SPLIT_MIN_TARGET, narrow_sums, split_products};

    #[test]
    fn narrow_sums_holds_exactly_below_two_to_the_128() {
        // 62-bit primes: 16 limbs stay below 2^128 (16 (2^62 - 1)^2 + 17 2^62), 17 do not.
        assert_eq!(narrow_sums(16, 1 << 62, 1 << 62), 1);
        assert_eq!(narrow_sums(17, 1 << 62, 1 << 62), 0);
        assert_eq!(narrow_sums(255, 1 << 60, 1 << 60), 1);
        assert_eq!(narrow_sums(256, 1 << 60, 1 << 60), 0);
        assert_eq!(narrow_sums(300, 1 << 61, 1 << 61), 0);
        assert_eq!(narrow_sums(0, u64::MAX, u64::MAX), 1);
        // The exact bound: k p^2 + (k + 1) 2^62 against 2^128.
        for k in [1usize, 2, 15, 16, 17, 100, 255] {
            for bits in [30u32, 50, 55, 58, 60, 61, 62] {
                let p = (1u64 << bits) - 1;
                let exact = num_bigint::BigUint::from(k) * num_bigint::BigUint::from(p - 1).pow(2)
                    + (num_bigint::BigUint::from(k + 1) << 62);
                let fits = exact < (num_bigint::BigUint::from(1u8) << 128);
                assert_eq!(narrow_sums(k, p, p) == 1, fits, "k = {k}, {bits} bits");
            }
        }
    }

    #[test]
    fn split_products_takes_factors_below_two_to_the_40_and_at_most_64_terms() {
        assert_eq!(split_products(8, 1 << 40, 1 << 40, 1 << 39), 1);
        assert_eq!(split_products(64, 1 << 40, 1 << 36, 1 << 28), 1);
        assert_eq!(split_products(65, 1 << 36, 1 << 36, 1 << 35), 0);
        assert_eq!(split_products(8, (1 << 40) + 1, 1 << 36, 1 << 35), 0);
        assert_eq!(split_products(8, 1 << 36, (1 << 40) + 1, 1 << 35), 0);
        assert_eq!(split_products(8, 1 << 36, 1 << 36, (1 << 28) - 1), 0);
        // The limits keep the kernel exact: with SPLIT_MAX_LIMBS terms of factors below
        // SPLIT_MAX_MODULUS, the middle sum of 20-bit part products, 2k (2^20 - 1)^2, stays below
        // 2^52 (exact doubles), and the whole sum stays below 2^(n+63) for the smallest target
        // of n = bit length of SPLIT_MIN_TARGET (reduce_short's bound).
        let k = SPLIT_MAX_LIMBS as u128;
        let part = u128::from(SPLIT_MAX_MODULUS.isqrt() - 1);
        assert_eq!(part, (1 << 20) - 1);
        assert!(2 * k * part * part < 1 << 52);
        let n = 64 - SPLIT_MIN_TARGET.leading_zeros();
        assert!(k * u128::from(SPLIT_MAX_MODULUS - 1).pow(2) < 1u128 << (n + 63));
    }
}
