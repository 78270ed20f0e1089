//! The kernel tables of `kernels/ntt.cu`: every pass kernel with its four (or more) functions
//! ([`PASS_KERNELS`], [`SINGLE_KERNELS`]), the kernels fused with the centered lift and with key
//! switching's inner product, their loading per device ([`NttKernels`]), and the launch
//! geometry of one pass ([`NttPass`]).

use std::sync::Arc;

use cudarc::driver::{CudaContext, LaunchConfig};

use crate::error::{GpuError, Result};
use crate::kernel::{Kernel, LoadedModule};
use crate::tuning::{GpuTuning, NttTuning};

// Geometry constants mirrored from kernels/ntt.cu.
pub(super) const STRIDED_COLUMNS: u32 = 16;
pub(super) const CONTIGUOUS_BLOCK_WORDS: u32 = 1024;
/// Points per thread (log) of the single-block kernels.
pub(super) const SINGLE_LOG_RADIX: u32 = 3;

/// Primes below `2^FP64_NTT_MAX_PRIME_BITS` may run their two-pass transforms' butterflies on the
/// FP64 pipe (kernels/ntt.cu, "Butterflies on the FP64 pipe": their bounds hold below 2^43).
pub const FP64_NTT_MAX_PRIME_BITS: u32 = 43;

/// The pipe a two-pass transform's butterflies run on (the `_f64` kernels of kernels/ntt.cu or
/// the integer ones). The words are the same on both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ButterflyPipe {
    /// Shoup products from 32-bit integer multiplies (every prime below 2^62).
    Integer,
    /// Exact products from FP64 multiply-adds (primes below `2^FP64_NTT_MAX_PRIME_BITS`).
    Fp64,
}

impl ButterflyPipe {
    /// The pipe of a ring with these primes under `tuning`: FP64 where the tuning asks for it
    /// ([`NttTuning::fp64_butterflies`]) and every prime is below `2^FP64_NTT_MAX_PRIME_BITS`.
    pub(crate) fn for_primes(tuning: &NttTuning, mut primes: impl Iterator<Item = u64>) -> Self {
        if tuning.fp64_butterflies && primes.all(|p| p < 1 << FP64_NTT_MAX_PRIME_BITS) {
            ButterflyPipe::Fp64
        } else {
            ButterflyPipe::Integer
        }
    }
}

/// The two kinds of pass of a two-pass transform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PassKind {
    Strided,
    Contiguous,
}

/// The names of one kernel of `kernels/ntt.cu` in its four functions.
#[derive(Debug, Clone, Copy)]
pub(super) struct FunctionNames {
    pub(super) forward: &'static str,
    pub(super) inverse: &'static str,
    /// The inverse pass that multiplies by a factor first (contiguous and single-block passes:
    /// they come first in the inverse).
    pub(super) inverse_product: Option<&'static str>,
    /// The inverse pass that loads `addend + source * factor` (the same passes).
    pub(super) inverse_mul_add: Option<&'static str>,
    /// The first inverse pass reading another buffer (out of place; the same passes).
    pub(super) inverse_from: Option<&'static str>,
    /// The first forward pass leaving out the fused inner product's own limbs (strided).
    pub(super) forward_skip: Option<&'static str>,
    /// The forward pass that loads the ModUp of one-prime digits (strided and single-block
    /// passes: they come first in the forward).
    pub(super) forward_extend: Option<&'static str>,
    /// The last forward pass storing through ModDown's epilogue (contiguous passes).
    pub(super) forward_mod_down: Option<&'static str>,
}

impl FunctionNames {
    pub(super) fn get(&self, function: PassFunction) -> Option<&'static str> {
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

/// One two-pass kernel of `kernels/ntt.cu` in its functions, on both pipes.
#[derive(Debug, Clone, Copy)]
pub(super) struct PassKernel {
    pub(super) kind: PassKind,
    pub(super) log_m: u32,
    pub(super) log_radix: u32,
    /// Sub-transforms per block: [`STRIDED_COLUMNS`] or fewer (strided passes), or
    /// [`CONTIGUOUS_BLOCK_WORDS`] points' worth or fewer (contiguous passes).
    pub(super) columns: u32,
    /// The integer kernels.
    pub(super) names: FunctionNames,
    /// The same kernels on the FP64 pipe (names ending in `_f64`).
    pub(super) names_f64: FunctionNames,
}

impl PassKernel {
    pub(super) fn names_on(&self, pipe: ButterflyPipe) -> &FunctionNames {
        match pipe {
            ButterflyPipe::Integer => &self.names,
            ButterflyPipe::Fp64 => &self.names_f64,
        }
    }
}

/// The [`PassKernel`] of a strided pass of `2^m` points, `2^r` per thread (names as exported),
/// with [`STRIDED_COLUMNS`] or `c` columns per block (kernel names ending in `_c<c>`).
macro_rules! strided_kernel {
    ($m:literal, $r:literal) => {
        strided_kernel!($m, $r, 16, "", "_f64")
    };
    ($m:literal, $r:literal, $c:literal, $suffix:literal, $suffix_f64:literal) => {
        PassKernel {
            kind: PassKind::Strided,
            log_m: $m,
            log_radix: $r,
            columns: $c,
            names: strided_names!($m, $r, $suffix),
            names_f64: strided_names!($m, $r, $suffix_f64),
        }
    };
}

macro_rules! strided_names {
    ($m:literal, $r:literal, $suffix:literal) => {
        FunctionNames {
            forward: concat!("ntt_fwd_strided_", $m, "_lr", $r, $suffix),
            inverse: concat!("ntt_inv_strided_", $m, "_lr", $r, $suffix),
            inverse_product: None,
            inverse_mul_add: None,
            inverse_from: None,
            forward_skip: Some(concat!("ntt_fwd_skip_strided_", $m, "_lr", $r, $suffix)),
            forward_extend: Some(concat!("ntt_fwd_extend_strided_", $m, "_lr", $r, $suffix)),
            forward_mod_down: None,
        }
    };
}

/// The [`PassKernel`] of a contiguous pass of `2^m` points, `2^r` per thread, with
/// [`CONTIGUOUS_BLOCK_WORDS`] or `w` points per block (kernel names ending in `_w<w>`).
macro_rules! contiguous_kernel {
    ($m:literal, $r:literal) => {
        contiguous_kernel!($m, $r, 1024, "", "_f64")
    };
    ($m:literal, $r:literal, $w:literal, $suffix:literal, $suffix_f64:literal) => {
        PassKernel {
            kind: PassKind::Contiguous,
            log_m: $m,
            log_radix: $r,
            columns: $w >> $m,
            names: contiguous_names!($m, $r, $suffix),
            names_f64: contiguous_names!($m, $r, $suffix_f64),
        }
    };
}

macro_rules! contiguous_names {
    ($m:literal, $r:literal, $suffix:literal) => {
        FunctionNames {
            forward: concat!("ntt_fwd_contiguous_", $m, "_lr", $r, $suffix),
            inverse: concat!("ntt_inv_contiguous_", $m, "_lr", $r, $suffix),
            inverse_product: Some(concat!("ntt_inv_product_contiguous_", $m, "_lr", $r, $suffix)),
            inverse_mul_add: Some(concat!("ntt_inv_mul_add_contiguous_", $m, "_lr", $r, $suffix)),
            inverse_from: Some(concat!("ntt_inv_from_contiguous_", $m, "_lr", $r, $suffix)),
            forward_skip: None,
            forward_extend: None,
            forward_mod_down: Some(concat!("ntt_fwd_mod_down_contiguous_", $m, "_lr", $r, $suffix)),
        }
    };
}

/// Every two-pass kernel of `kernels/ntt.cu`.
pub(super) const PASS_KERNELS: &[PassKernel] = &[
    strided_kernel!(5, 2),
    strided_kernel!(6, 2),
    strided_kernel!(5, 3),
    strided_kernel!(6, 3),
    strided_kernel!(7, 3),
    strided_kernel!(8, 3),
    strided_kernel!(7, 4),
    strided_kernel!(8, 4),
    strided_kernel!(7, 2, 8, "_c8", "_c8_f64"),
    strided_kernel!(8, 2, 8, "_c8", "_c8_f64"),
    contiguous_kernel!(5, 2),
    contiguous_kernel!(6, 2),
    contiguous_kernel!(5, 3),
    contiguous_kernel!(6, 3),
    contiguous_kernel!(7, 3),
    contiguous_kernel!(8, 3),
    contiguous_kernel!(9, 3),
    contiguous_kernel!(7, 2, 512, "_w512", "_w512_f64"),
    contiguous_kernel!(8, 2, 512, "_w512", "_w512_f64"),
    contiguous_kernel!(9, 2, 512, "_w512", "_w512_f64"),
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
pub(super) const SINGLE_KERNELS: [FunctionNames; 3] = [single_kernel!(10), single_kernel!(11), single_kernel!(12)];
/// `log2(N)` of `SINGLE_KERNELS[0]`.
pub(super) const SINGLE_MIN_LOG_N: u32 = 10;

/// One kernel of `kernels/ntt.cu` in its four functions, loaded.
#[derive(Debug)]
pub(super) struct Functions {
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
    pub(super) passes: Vec<Functions>,
    /// The same on the FP64 pipe ([`PassKernel::names_f64`]).
    pub(super) passes_f64: Vec<Functions>,
    pub(super) single: Vec<Functions>,
    /// `ntt_fwd_ip_contiguous_<m>_lr3` by `m` (see [`FORWARD_IP_LOG_M`]), integer then FP64
    /// (`_f64`).
    pub(super) forward_ip: [Vec<(u32, Kernel)>; 2],
    /// `ntt_fwd_ip_split_contiguous_<m>_lr3` by `m`: the same with own limbs and a special
    /// output ([`InnerProductKeys::own`], [`InnerProductKeys::special`]), integer then FP64.
    pub(super) forward_ip_split: [Vec<(u32, Kernel)>; 2],
    /// The last inverse pass fused with the centered lift modulo `t`, on devices with thread
    /// block clusters (compute capability 9.0 and up); `None` elsewhere.
    pub(super) lift: Option<LiftKernels>,
}

/// `ntt_inv_lift_strided_<m>_lr3` (kernels/ntt.cu) prepared for cluster launches: each with
/// the dynamic shared memory it may take, and the largest cluster every one of them allows.
#[derive(Debug)]
pub(super) struct LiftKernels {
    /// `(m, kernel, dynamic shared-memory bytes allowed)`, as [`LIFT_KERNELS`].
    pub(super) kernels: Vec<(u32, Kernel, u32)>,
    pub(super) max_cluster: u32,
}

/// The strided last passes fused with the centered lift: `(log2` of their points, name). They
/// are those of `N <= 2^12` ([`LIFT_MAX_LOG_N`]).
pub(super) const LIFT_KERNELS: [(u32, &str); 2] =
    [(5, "ntt_inv_lift_strided_5_lr3"), (6, "ntt_inv_lift_strided_6_lr3")];
/// Largest `log2 N` of the fused lift. H100, DecryptResident: at 2^12 6.0 us of kernels against
/// 7.2 for the strided pass and the separate reduction; at 2^14 10.7 against 11.4, no faster in
/// the benchmark; at 2^15 and 2^16 slower (docs/performance.md).
pub(super) const LIFT_MAX_LOG_N: u32 = 12;
/// `log2` of the points per thread of the fused lift passes.
pub(super) const LIFT_LOG_RADIX: u32 = 3;
/// Largest cluster of the fused lift: 16 blocks (H100's non-portable limit) where the driver
/// allows it, else the portable 8 ([`NttTuning::lift_max_cluster`] may ask for fewer).
pub(super) const LIFT_MAX_CLUSTER: u32 = 16;
/// Smallest cluster of the fused lift (blocks past the last limb only lift): the portable
/// limit, at which every block's threads lift one coefficient each.
pub(super) const LIFT_MIN_CLUSTER: u32 = 8;

impl LiftKernels {
    /// The lift kernels of `module`, prepared (larger dynamic shared memory, clusters above 8
    /// blocks, at most `max_cluster`), or `None` on devices without clusters, with
    /// `max_cluster` 0, or where the driver refuses the attributes.
    fn load(context: &Arc<CudaContext>, module: &LoadedModule, max_cluster: u32) -> Result<Option<Self>> {
        use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute};
        let wanted = max_cluster.min(LIFT_MAX_CLUSTER);
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
pub(super) const FORWARD_IP_LOG_M: [u32; 5] = [5, 6, 7, 8, 9];
/// Their names, in the order of [`FORWARD_IP_LOG_M`].
pub(super) const FORWARD_IP_NAMES: [&str; 5] = [
    "ntt_fwd_ip_contiguous_5_lr3",
    "ntt_fwd_ip_contiguous_6_lr3",
    "ntt_fwd_ip_contiguous_7_lr3",
    "ntt_fwd_ip_contiguous_8_lr3",
    "ntt_fwd_ip_contiguous_9_lr3",
];
/// Their `_split` variants, in the same order.
pub(super) const FORWARD_IP_SPLIT_NAMES: [&str; 5] = [
    "ntt_fwd_ip_split_contiguous_5_lr3",
    "ntt_fwd_ip_split_contiguous_6_lr3",
    "ntt_fwd_ip_split_contiguous_7_lr3",
    "ntt_fwd_ip_split_contiguous_8_lr3",
    "ntt_fwd_ip_split_contiguous_9_lr3",
];
/// [`FORWARD_IP_NAMES`] on the FP64 pipe.
pub(super) const FORWARD_IP_NAMES_F64: [&str; 5] = [
    "ntt_fwd_ip_contiguous_5_lr3_f64",
    "ntt_fwd_ip_contiguous_6_lr3_f64",
    "ntt_fwd_ip_contiguous_7_lr3_f64",
    "ntt_fwd_ip_contiguous_8_lr3_f64",
    "ntt_fwd_ip_contiguous_9_lr3_f64",
];
/// [`FORWARD_IP_SPLIT_NAMES`] on the FP64 pipe.
pub(super) const FORWARD_IP_SPLIT_NAMES_F64: [&str; 5] = [
    "ntt_fwd_ip_split_contiguous_5_lr3_f64",
    "ntt_fwd_ip_split_contiguous_6_lr3_f64",
    "ntt_fwd_ip_split_contiguous_7_lr3_f64",
    "ntt_fwd_ip_split_contiguous_8_lr3_f64",
    "ntt_fwd_ip_split_contiguous_9_lr3_f64",
];
/// `log2` of the points per thread of the fused passes.
pub(super) const FORWARD_IP_LOG_RADIX: u32 = 3;

impl NttKernels {
    pub(crate) fn load(context: &Arc<CudaContext>, tuning: &GpuTuning) -> Result<Self> {
        let module = LoadedModule::load(context, hegpu_kernels::NTT, tuning.programmatic_launches)?;
        let fused = |names: [&'static str; 5]| -> Result<Vec<(u32, Kernel)>> {
            FORWARD_IP_LOG_M.iter().zip(names).map(|(&m, name)| Ok((m, module.kernel(name)?))).collect()
        };
        Ok(Self {
            passes: PASS_KERNELS.iter().map(|k| Functions::load(&module, &k.names)).collect::<Result<_>>()?,
            passes_f64: PASS_KERNELS.iter().map(|k| Functions::load(&module, &k.names_f64)).collect::<Result<_>>()?,
            single: SINGLE_KERNELS.iter().map(|names| Functions::load(&module, names)).collect::<Result<_>>()?,
            forward_ip: [fused(FORWARD_IP_NAMES)?, fused(FORWARD_IP_NAMES_F64)?],
            forward_ip_split: [fused(FORWARD_IP_SPLIT_NAMES)?, fused(FORWARD_IP_SPLIT_NAMES_F64)?],
            lift: LiftKernels::load(context, &module, tuning.ntt.lift_max_cluster)?,
        })
    }

    /// The fused inner-product kernels on `pipe` (`split`: the `_split` ones).
    pub(super) fn forward_ip_on(&self, pipe: ButterflyPipe, split: bool) -> &[(u32, Kernel)] {
        let kernels = if split { &self.forward_ip_split } else { &self.forward_ip };
        match pipe {
            ButterflyPipe::Integer => &kernels[0],
            ButterflyPipe::Fp64 => &kernels[1],
        }
    }

    /// The kernel of `pass`.
    pub(super) fn get(&self, pass: &NttPass) -> Result<&Kernel> {
        let functions = match (pass.table, pass.pipe) {
            (KernelTable::Pass, ButterflyPipe::Integer) => self.passes.get(pass.index),
            (KernelTable::Pass, ButterflyPipe::Fp64) => self.passes_f64.get(pass.index),
            (KernelTable::Single, _) => self.single.get(pass.index),
        };
        // Unreachable: passes are made from the tables these kernels were loaded from.
        functions
            .and_then(|f| f.get(pass.function))
            .ok_or_else(|| GpuError::Unsupported { what: format!("NTT kernel {}", pass.name) })
    }
}

/// The index in [`PASS_KERNELS`] of the kernel of this kind, size, radix and columns per block.
pub(super) fn find_pass_kernel(kind: PassKind, log_m: u32, log_radix: u32, columns: u32) -> Option<usize> {
    PASS_KERNELS
        .iter()
        .position(|k| k.kind == kind && k.log_m == log_m && k.log_radix == log_radix && k.columns == columns)
}

pub(super) fn pass_kernel_exists(kind: PassKind, log_m: u32, log_radix: u32, columns: u32) -> bool {
    find_pass_kernel(kind, log_m, log_radix, columns).is_some()
}

/// Which function of a pass kernel runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PassFunction {
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
pub(super) enum KernelTable {
    /// [`PASS_KERNELS`].
    Pass,
    /// [`SINGLE_KERNELS`].
    Single,
}

/// One kernel launch of a transform.
#[derive(Debug, Clone, Copy)]
pub(super) struct NttPass {
    /// The kernel's name (for errors and tests).
    pub(super) name: &'static str,
    /// Where the kernel is: `function` of entry `index` of `table` ([`NttKernels::get`]).
    pub(super) table: KernelTable,
    pub(super) index: usize,
    /// The pipe of its butterflies (single-block kernels: always [`ButterflyPipe::Integer`]).
    pub(super) pipe: ButterflyPipe,
    pub(super) function: PassFunction,
    pub(super) config: LaunchConfig,
    /// The transform's first pass: it reads the forward source or takes the inverse's product.
    pub(super) first: bool,
}

/// The single-block pass of `2^log_n` points (the whole transform).
pub(super) fn single_pass(function: PassFunction, log_n: u32, grid_y: u32) -> Result<NttPass> {
    let index = log_n.checked_sub(SINGLE_MIN_LOG_N).map(|i| i as usize);
    let name = index.and_then(|i| SINGLE_KERNELS.get(i)).and_then(|names| names.get(function));
    match (index, name) {
        (Some(index), Some(name)) => Ok(NttPass {
            name,
            table: KernelTable::Single,
            index,
            pipe: ButterflyPipe::Integer,
            function,
            config: single_config(log_n, grid_y),
            first: true,
        }),
        _ => Err(GpuError::Unsupported { what: format!("NTT single-block pass ({function:?}) of 2^{log_n} points") }),
    }
}

pub(super) fn single_config(log_n: u32, grid_y: u32) -> LaunchConfig {
    let log_radix = log_n.min(SINGLE_LOG_RADIX);
    LaunchConfig { grid_dim: (1, grid_y, 1), block_dim: (1 << (log_n - log_radix), 1, 1), shared_mem_bytes: 0 }
}

/// `columns` sub-transforms of `2^log_m` points per block, `2^log_radix` points per thread.
pub(super) fn strided_config(n: u32, log_m: u32, log_radix: u32, columns: u32, grid_y: u32) -> LaunchConfig {
    let threads = (columns << log_m) >> log_radix;
    LaunchConfig { grid_dim: ((n >> log_m) / columns, grid_y, 1), block_dim: (threads, 1, 1), shared_mem_bytes: 0 }
}

/// `columns` sub-transforms of `2^log_m` points per block (at most
/// `CONTIGUOUS_BLOCK_WORDS` points), `2^log_radix` points per thread.
pub(super) fn contiguous_config(n: u32, log_m: u32, log_radix: u32, columns: u32, grid_y: u32) -> LaunchConfig {
    let threads = (columns << log_m) >> log_radix;
    LaunchConfig { grid_dim: ((n >> log_m) / columns, grid_y, 1), block_dim: (threads, 1, 1), shared_mem_bytes: 0 }
}
