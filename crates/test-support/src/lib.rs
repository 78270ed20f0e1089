//! The harness of hegpu's tests and GPU benchmark binaries (not published; the crates use it
//! as a dev-dependency, `benches` as a dependency). It is the only reader of the test-harness
//! environment variables; the libraries read none of them.
//!
//! - [`open_device_or_skip`] (feature `cuda`): a CUDA device, or a skip when this machine has
//!   no GPU. A skip is printed and recorded in the file that [`SKIP_LOG_ENV`] names, which is
//!   how `cargo xtask test` counts the test as skipped rather than passed; [`REQUIRE_GPU_ENV`]
//!   (set by `.gpu/run.sh` and `cargo xtask test-gpu`) makes a missing device an error.
//! - [`gpu_cases`]: the device every GPU test of a binary shares, and random GPU-against-CPU
//!   cases drawn by proptest, committed regressions replayed first;
//! - [`golden`]: the hashes of golden vectors and the check of a table of them;
//! - [`slots`]: plaintext arithmetic on batching slots, the reference of the circuit tests;
//! - [`slot_ring`]: arithmetic in `Z_n[X]/f`, the reference of the extension-field slot tests.
// Without `cuda` the device items the docs link to do not exist.
#![cfg_attr(not(feature = "cuda"), allow(rustdoc::broken_intra_doc_links))]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod format_v2;
pub mod golden;
pub mod gpu_cases;
pub mod packed;
pub mod slot_ring;
pub mod slots;

use std::io::Write;
use std::path::{Path, PathBuf};
#[cfg(feature = "cuda")]
use std::sync::Arc;

#[cfg(feature = "cuda")]
use poly_cuda::{GpuDevice, GpuError};

/// Environment variable that turns "no GPU here" into an error for [`open_device_or_skip`]:
/// set it (to anything but `0`) on a GPU machine, so that GPU tests that cannot find the
/// device fail instead of skipping. `.gpu/run.sh` and `cargo xtask test-gpu` set it.
pub const REQUIRE_GPU_ENV: &str = "HEGPU_REQUIRE_GPU";

/// Environment variable naming a file to which [`record_skip`] appends one line per skip: the
/// name of the skipped test. `cargo xtask test` sets it for each test binary and reads it
/// back, to count a GPU test that found no device as skipped, not passed.
pub const SKIP_LOG_ENV: &str = "HEGPU_SKIP_LOG";

/// Whether [`REQUIRE_GPU_ENV`] is set, to anything but the empty string or `0`.
pub fn gpu_required() -> bool {
    is_required(std::env::var(REQUIRE_GPU_ENV).ok().as_deref())
}

fn is_required(value: Option<&str>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v != "0")
}

/// The skip log could not be written.
#[derive(Debug, thiserror::Error)]
#[error("could not record a skipped GPU test in {}: {source}", .path.display())]
pub struct SkipLogError {
    /// The skip log's path (the value of [`SKIP_LOG_ENV`]).
    pub path: PathBuf,
    /// The I/O error that opening or writing it gave.
    pub source: std::io::Error,
}

/// Appends `name` and a newline to the file named by [`SKIP_LOG_ENV`], if that is set.
pub fn record_skip(name: &str) -> Result<(), SkipLogError> {
    match std::env::var_os(SKIP_LOG_ENV) {
        Some(path) => append_line(Path::new(&path), name),
        None => Ok(()),
    }
}

/// One `write` of a short line to a file opened for appending: the lines of parallel tests do
/// not interleave.
fn append_line(path: &Path, line: &str) -> Result<(), SkipLogError> {
    let failed = |source| SkipLogError { path: path.to_owned(), source };
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(failed)?;
    file.write_all(format!("{line}\n").as_bytes()).map_err(failed)
}

/// Why [`open_device_or_skip`] gives no device and no skip.
#[cfg(feature = "cuda")]
#[derive(Debug, thiserror::Error)]
pub enum DeviceError {
    /// The device could not be opened: a machine with a GPU that is unusable, or without one
    /// while [`REQUIRE_GPU_ENV`] is set.
    #[error(transparent)]
    Gpu(#[from] GpuError),
    /// The skip could not be recorded.
    #[error(transparent)]
    SkipLog(#[from] SkipLogError),
}

/// Opens device `ordinal` for tests and benchmarks that must run anywhere: `Ok(None)` (after
/// printing why to stderr, and recording the skip with [`record_skip`] under the current
/// thread's name, which libtest gives the running test) only when the machine has no CUDA
/// driver or the driver reports no device, and [`REQUIRE_GPU_ENV`] is not set. Every other
/// failure to open a device (driver too old, device busy, out of memory, no such ordinal) is
/// an error, as is a missing device when [`REQUIRE_GPU_ENV`] is set: a broken GPU machine must
/// not look like one without a GPU.
#[cfg(feature = "cuda")]
pub fn open_device_or_skip(ordinal: usize) -> Result<Option<Arc<GpuDevice>>, DeviceError> {
    let required = gpu_required();
    match GpuDevice::new(ordinal) {
        Ok(device) => Ok(Some(device)),
        Err(error @ (GpuError::DriverNotLoadable | GpuError::NoDevice { .. })) if !required => {
            let current = std::thread::current();
            let name = current.name().unwrap_or("unnamed thread");
            eprintln!("skipped {name}: no CUDA device: {error} (set {REQUIRE_GPU_ENV}=1 to make this an error)");
            record_skip(name)?;
            Ok(None)
        }
        Err(error) => Err(error.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_set_nonzero_value_requires_the_gpu() {
        assert!(!is_required(None));
        assert!(!is_required(Some("")));
        assert!(!is_required(Some("0")));
        assert!(is_required(Some("1")));
        assert!(is_required(Some("yes")));
    }

    #[test]
    fn skips_are_appended_one_line_each() {
        let dir = std::env::temp_dir().join(format!("hegpu-test-support-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let log = dir.join("skips");
        let _ = std::fs::remove_file(&log);
        append_line(&log, "a::first").unwrap();
        append_line(&log, "second").unwrap();
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "a::first\nsecond\n");
        std::fs::remove_dir_all(&dir).unwrap();
        let missing = dir.join("no-such-dir").join("skips");
        let error = append_line(&missing, "x").unwrap_err();
        assert_eq!(error.path, missing);
    }
}
