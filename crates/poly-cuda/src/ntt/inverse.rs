//! Inverse transforms: in place, out of place, of a product or a multiply-add (loaded by the
//! first pass), with a caller's last-stage scale, and fused with the centered lift modulo `t`
//! in thread block clusters ([`ntt_inverse_of_mul_add_lifted`]).

use cudarc::driver::{CudaSlice, LaunchConfig};

use super::passes::{
    LIFT_LOG_RADIX, LIFT_MAX_LOG_N, LIFT_MIN_CLUSTER, NttPass, PassFunction, PassKind, STRIDED_COLUMNS, strided_config,
};
use super::schedule::{NttSchedule, NttTransform, ntt_passes, pass_launch};
use super::total_limbs;
use crate::context::GpuContext;
use crate::error::Result;
use crate::kernel::{Kernel, address};

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
/// shoup}`, [`crate::raw::InverseScale`], of this context's limbs; the caller checks) in place of
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

/// The operands of the centered lift modulo `t` ([`crate::raw::CenteredLift`]) for one launch.
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
pub(super) struct LiftParams {
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
    let first = pass_launch(
        &context.device().tuning().ntt,
        PassFunction::InverseMulAdd,
        PassKind::Contiguous,
        n,
        plan.contiguous,
        grid_y,
        true,
        tables.pipe,
    )?;
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
pub(super) enum FirstLoad<'a> {
    /// `source` (out of place; `data` is only written).
    From { source: &'a CudaSlice<u64> },
    /// `data`, in place.
    Data,
    /// `data * factor`.
    Product { factor: &'a CudaSlice<u64> },
    /// `addend + source * factor` (`data` is only written).
    MulAdd { source: &'a CudaSlice<u64>, factor: &'a CudaSlice<u64>, addend: &'a CudaSlice<u64> },
}

pub(super) fn launch_inverse(
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
    for pass in ntt_passes(&context.device().tuning().ntt, transform, &tables.schedule, log_n, grid_y, tables.pipe)? {
        launch_inverse_pass(context, data, load, &pass, scale)?;
    }
    Ok(())
}

/// One pass of [`launch_inverse`] (also the first pass of [`ntt_inverse_of_mul_add_lifted`]).
pub(super) fn launch_inverse_pass(
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
