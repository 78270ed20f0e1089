//! The one place the benchmarks read the tuning variables of the environment: they build a
//! [`GpuTuning`] from them and open their devices with it (the library reads no environment
//! variable). The names are those measurement scripts have used; unset or unparsable, a
//! variable leaves the default.
//!
//! - `POLY_CUDA_NTT_SINGLE_PASS_MAX_LOG_N`, `POLY_CUDA_NTT_SPLIT` (`<log_n>:<strided>x<contiguous>`
//!   entries separated by commas, e.g. `15:7x8`), `POLY_CUDA_NTT_STRIDED_LOG_RADIX`,
//!   `POLY_CUDA_NTT_CONTIGUOUS_LOG_RADIX`, `POLY_CUDA_NTT_SMALL_LAUNCH_POINTS`,
//!   `POLY_CUDA_NTT_SINGLE_LAUNCH_POINTS`, `POLY_CUDA_NTT_MEDIUM_LAUNCH_POINTS`,
//!   `POLY_CUDA_NTT_MEDIUM_STRIDED` (`<log radix>x<columns>`),
//!   `POLY_CUDA_NTT_MEDIUM_CONTIGUOUS_LAUNCH_POINTS`, `POLY_CUDA_NTT_MEDIUM_CONTIGUOUS`
//!   (`<log radix>x<points per block>`), `POLY_CUDA_NTT_MUL_ADD_MEDIUM_LAUNCH_POINTS`,
//!   `POLY_CUDA_NTT_SHORT_STRIDED_LAUNCH_POINTS`, `HEGPU_LIFT_MAX_CLUSTER`,
//!   `HEGPU_FORWARD_IP_MIN_BLOCKS`, `HEGPU_NTT_FP64` (`0` or `1`): [`poly_cuda::NttTuning`]'s fields;
//! - `HEGPU_GRAPHS=0`, `HEGPU_GRAPH_MAX_DEGREE`, `HEGPU_PROGRAMMATIC_GRAPHS=0`:
//!   [`poly_cuda::GraphTuning`]; `HEGPU_PROGRAMMATIC_LAUNCHES=0`:
//!   [`GpuTuning::programmatic_launches`]; `HEGPU_RNS_MIN_BLOCK_OUTPUTS`,
//!   `HEGPU_HOISTING_MIN_LOG_N`, `HEGPU_RNS_TENSOR_CORES` (`0` or `1`): [`poly_cuda::RnsTuning`];
//! - `HEGPU_CYC_BINOMIAL_MAX_STEPS`, `HEGPU_CYC_PAIR` (`0` or `1`): [`poly_cuda::CyclotomicTuning`];
//! - `HEGPU_TRACE_LAUNCHES=1`: [`poly_cuda::launch_trace::set_enabled`].

use std::sync::Arc;

use poly_cuda::{GpuDevice, GpuError, GpuTuning, NttSplit};

/// Variables of A/B paths that were measured, decided and removed (docs/performance.md, tried
/// and removed): set, they no longer change anything, which [`from_env`] says.
const REMOVED: [&str; 9] = [
    "HEGPU_KS_SEPARATE_MOD_UP",
    "HEGPU_KS_UNFUSED_INNER_PRODUCT",
    "HEGPU_KS_SEPARATE_MOD_DOWN",
    "HEGPU_KS_TRANSFORM_OWN_LIMBS",
    "HEGPU_KS_CONVERSION_PER_DIGIT",
    "HEGPU_RNS_WIDE_SUMS",
    "HEGPU_RNS_SPLIT_PRODUCTS",
    "HEGPU_BFV_UNBATCHED_PRODUCT",
    "HEGPU_REDUCE_LIMBS_PER_THREAD",
];

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

fn number<T: std::str::FromStr>(name: &str) -> Option<T> {
    var(name)?.trim().parse().ok()
}

/// A value of the form `<a>x<b>`.
fn pair(name: &str) -> Option<(u32, u32)> {
    let value = var(name)?;
    let (a, b) = value.split_once('x')?;
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}

/// `0` turns a default-on switch off.
fn off(name: &str) -> bool {
    var(name).is_some_and(|v| v == "0")
}

/// The splits of a `POLY_CUDA_NTT_SPLIT` value: its well-formed entries, in order (whether a
/// split has kernels is the library's check, [`poly_cuda::NttTuning::splits`]).
pub fn parse_splits(value: &str) -> Vec<NttSplit> {
    value
        .split(',')
        .filter_map(|entry| {
            let (degree, pair) = entry.trim().split_once(':')?;
            let (strided, contiguous) = pair.split_once('x')?;
            Some(NttSplit {
                log_n: degree.trim().parse().ok()?,
                strided: strided.trim().parse().ok()?,
                contiguous: contiguous.trim().parse().ok()?,
            })
        })
        .collect()
}

/// The tuning the environment asks for (the defaults where it asks nothing), and the launch
/// trace turned on where `HEGPU_TRACE_LAUNCHES=1`.
pub fn from_env() -> GpuTuning {
    for name in REMOVED.iter().filter(|name| var(name).is_some()) {
        eprintln!("note: {name} no longer has an effect (a decided A/B path, removed)");
    }
    if var("HEGPU_TRACE_LAUNCHES").is_some_and(|v| v == "1") {
        poly_cuda::launch_trace::set_enabled(true);
    }
    let mut tuning = GpuTuning::default();
    let ntt = &mut tuning.ntt;
    ntt.single_pass_max_log_n = number("POLY_CUDA_NTT_SINGLE_PASS_MAX_LOG_N");
    ntt.splits = var("POLY_CUDA_NTT_SPLIT").map(|v| parse_splits(&v)).unwrap_or_default();
    ntt.strided_log_radix = number("POLY_CUDA_NTT_STRIDED_LOG_RADIX");
    ntt.contiguous_log_radix = number("POLY_CUDA_NTT_CONTIGUOUS_LOG_RADIX");
    let points = |name: &str, default: usize| number(name).unwrap_or(default);
    ntt.small_launch_points = points("POLY_CUDA_NTT_SMALL_LAUNCH_POINTS", ntt.small_launch_points);
    ntt.single_launch_points = points("POLY_CUDA_NTT_SINGLE_LAUNCH_POINTS", ntt.single_launch_points);
    ntt.medium_launch_points = points("POLY_CUDA_NTT_MEDIUM_LAUNCH_POINTS", ntt.medium_launch_points);
    ntt.medium_contiguous_launch_points =
        points("POLY_CUDA_NTT_MEDIUM_CONTIGUOUS_LAUNCH_POINTS", ntt.medium_contiguous_launch_points);
    ntt.mul_add_medium_launch_points =
        points("POLY_CUDA_NTT_MUL_ADD_MEDIUM_LAUNCH_POINTS", ntt.mul_add_medium_launch_points);
    ntt.short_strided_launch_points =
        points("POLY_CUDA_NTT_SHORT_STRIDED_LAUNCH_POINTS", ntt.short_strided_launch_points);
    ntt.medium_strided = pair("POLY_CUDA_NTT_MEDIUM_STRIDED").unwrap_or(ntt.medium_strided);
    ntt.medium_contiguous = pair("POLY_CUDA_NTT_MEDIUM_CONTIGUOUS").unwrap_or(ntt.medium_contiguous);
    ntt.lift_max_cluster = number("HEGPU_LIFT_MAX_CLUSTER").unwrap_or(ntt.lift_max_cluster);
    ntt.forward_ip_min_blocks = points("HEGPU_FORWARD_IP_MIN_BLOCKS", ntt.forward_ip_min_blocks);
    ntt.fp64_butterflies = !off("HEGPU_NTT_FP64");
    tuning.graphs.replay = !off("HEGPU_GRAPHS");
    tuning.graphs.max_degree = number("HEGPU_GRAPH_MAX_DEGREE");
    tuning.graphs.programmatic = !off("HEGPU_PROGRAMMATIC_GRAPHS");
    tuning.programmatic_launches = !off("HEGPU_PROGRAMMATIC_LAUNCHES");
    tuning.rns.min_block_outputs = number("HEGPU_RNS_MIN_BLOCK_OUTPUTS");
    tuning.rns.hoisting_min_log_n = number("HEGPU_HOISTING_MIN_LOG_N").unwrap_or(tuning.rns.hoisting_min_log_n);
    tuning.cyclotomic.binomial_max_steps =
        number("HEGPU_CYC_BINOMIAL_MAX_STEPS").unwrap_or(tuning.cyclotomic.binomial_max_steps);
    tuning.cyclotomic.pair_direct_axes = !off("HEGPU_CYC_PAIR");
    if let Some(on) = var("HEGPU_RNS_TENSOR_CORES") {
        tuning.rns.tensor_core_products = on != "0";
    }
    tuning
}

/// Device `ordinal` with the environment's tuning ([`from_env`]).
pub fn open_device(ordinal: usize) -> Result<Arc<GpuDevice>, GpuError> {
    GpuDevice::with_tuning(ordinal, from_env())
}

/// `hegpu_test_support::open_device_or_skip` with the environment's tuning: `Ok(None)` where that
/// skips; a device of the default tuning is opened once, another one a second time.
pub fn open_device_or_skip(ordinal: usize) -> Result<Option<Arc<GpuDevice>>, Box<dyn std::error::Error>> {
    let tuning = from_env();
    match hegpu_test_support::open_device_or_skip(ordinal)? {
        Some(device) if *device.tuning() == tuning => Ok(Some(device)),
        Some(_) => Ok(Some(GpuDevice::with_tuning(ordinal, tuning)?)),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(log_n: u32, strided: u32, contiguous: u32) -> NttSplit {
        NttSplit { log_n, strided, contiguous }
    }

    /// The library takes the first valid entry for a degree (poly-cuda's `split_for`); here only
    /// the form is checked.
    #[test]
    fn split_values_parse_entry_by_entry() {
        assert_eq!(parse_splits("15:7x8"), vec![split(15, 7, 8)]);
        assert_eq!(parse_splits("16:8x8, 15:7x8"), vec![split(16, 8, 8), split(15, 7, 8)]);
        assert_eq!(parse_splits("15:7-8"), vec![]);
        assert_eq!(parse_splits("15:7x8,x,17:8x9"), vec![split(15, 7, 8), split(17, 8, 9)]);
        assert_eq!(parse_splits(""), vec![]);
    }
}
