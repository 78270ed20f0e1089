//! Launches of `kernels/elementwise.cu` on limb-major device buffers `[poly][limb][N]` of one
//! [`GpuContext`]: sums, products, the tensor product, negation, scalar products,
//! automorphisms, and the many-buffer add/sub and copy. Callers check lengths and contexts;
//! these functions only queue work.

use cudarc::driver::{CudaSlice, LaunchConfig};

use poly::PolyError;

use crate::context::GpuContext;
use crate::error::Result;
use crate::kernel::{Kernel, address, address_mut, linear_config};

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
    let pairs = (context.poly_len() / 2) as u64;
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
