//! Forward transforms: in place, out of place, of one-prime digits' ModUp (loaded by the first
//! pass), and with fused epilogues in the last pass: ModDown's outputs
//! ([`ntt_forward_mod_down`]) and key switching's inner product ([`ntt_forward_inner_product`]).

use cudarc::driver::CudaSlice;

use super::passes::{
    CONTIGUOUS_BLOCK_WORDS, FORWARD_IP_LOG_M, FORWARD_IP_LOG_RADIX, NttPass, PassFunction, contiguous_config,
};
use super::schedule::{NttSchedule, NttTransform, ntt_passes, single_launch};
use super::total_limbs;
use crate::context::GpuContext;
use crate::error::{GpuError, Result};
use crate::kernel::{MAX_GRID_Y, address};

/// `IP_MAX_DIGITS` of kernels/ntt.cu: key digits per fused launch.
pub const FORWARD_IP_MAX_DIGITS: usize = 64;

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

pub(super) fn launch_forward(
    context: &GpuContext,
    data: &mut CudaSlice<u64>,
    input: ForwardInput<'_>,
    polys: usize,
) -> Result<()> {
    let tables = context.ntt_tables()?;
    let log_n = context.degree().trailing_zeros();
    let grid_y = total_limbs(context, polys)?;
    for pass in
        ntt_passes(&context.device().tuning().ntt, input.transform(), &tables.schedule, log_n, grid_y, tables.pipe)?
    {
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
pub(super) fn launch_forward_pass(
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
pub(super) struct ModDownEpilogueParams {
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
    /// Device address of the first key-switching sum's limbs of `q`.
    pub sums: u64,
    /// Words from the first sum to the second.
    pub sums_poly_words: usize,
    /// Device addresses of the two addends (0 for none), over the transform's context.
    pub addends: [u64; 2],
    /// Device addresses of the two outputs, over the transform's context.
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
        && !single_launch(&context.device().tuning().ntt, context.degree().trailing_zeros(), grid_y)
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
    let passes = ntt_passes(
        &context.device().tuning().ntt,
        NttTransform::ForwardModDown,
        &tables.schedule,
        log_n,
        grid_y,
        tables.pipe,
    )?;
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
pub(super) struct FwdIpParams {
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
    /// The key digits' `(b, a)` device addresses, one pair per polynomial of the transform.
    pub keys: &'a [(u64, u64)],
    /// The output's device address: the `b` sum, then the `a` sum, over the context.
    pub output: u64,
    /// Whether to add the output's current values.
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
    /// The device address of the input over `q` (evaluation representation).
    pub source: u64,
    /// The digit of the transform's polynomial 0.
    pub first_digit: usize,
    /// The limbs of `q` per digit.
    pub digit_limbs: usize,
    /// The input's number of limbs (the limbs of `q`).
    pub limbs_q: usize,
}

/// Whether [`ntt_forward_inner_product`] runs `polys` polynomials of `context`: a two-pass
/// forward transform whose contiguous pass has a fused kernel, over enough limbs to fill the
/// GPU ([`NttTuning::forward_ip_min_blocks`](crate::NttTuning::forward_ip_min_blocks)).
pub(crate) fn forward_inner_product_supported(context: &GpuContext, polys: usize) -> bool {
    let Ok(tables) = context.ntt_tables() else { return false };
    let log_n = context.degree().trailing_zeros();
    let Ok(grid_y) = total_limbs(context, polys) else { return false };
    let tuning = &context.device().tuning().ntt;
    match tables.schedule {
        NttSchedule::TwoPass { contiguous, .. } => {
            let blocks = (context.degree() >> 10) * context.num_limbs();
            !single_launch(tuning, log_n, grid_y)
                && FORWARD_IP_LOG_M.contains(&contiguous)
                && blocks >= tuning.forward_ip_min_blocks
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
    let passes =
        ntt_passes(&device.tuning().ntt, first_input.transform(), &tables.schedule, log_n, grid_y, tables.pipe)?;
    let Some(first) = passes.first().filter(|pass| pass.first && passes.len() == 2) else {
        return Err(GpuError::Unsupported { what: "a fused inner product after a single-block transform".to_string() });
    };
    // The split kernels honour own limbs and the special output; the plain ones (fewer
    // registers) serve the rest.
    let ntt = &device.kernels().ntt;
    let kernels = ntt.forward_ip_on(tables.pipe, own.is_some() || ip.special.is_some());
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
