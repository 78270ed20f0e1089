//! `cargo xtask test-gpu`: on a GPU machine that has cargo, builds the GPU test binaries with
//! `cuda` and runs them with a device required (`HEGPU_REQUIRE_GPU=1`). Unlike `test`, a
//! missing nvcc is an error, and so is a missing or unusable device: the device check
//! (`crates/poly-cuda/tests/device.rs`) runs first and stops the command when it fails.

use anyhow::{Result, bail};

use crate::cuda;
use crate::gpu_tests::{self, DEVICE_CHECK};
use crate::util::{project_root, section};

#[derive(Debug, Default)]
pub struct Options {
    /// Build in release mode (faster GPU tests, slower build).
    pub release: bool,
    /// Passed to the test binaries after `--` (not to the device check).
    pub test_args: Vec<String>,
}

pub fn run_command(options: &Options) -> Result<()> {
    section("test-gpu: GPU tests (feature `cuda`), a device required");
    let nvcc = cuda::find_nvcc(&project_root())
        .map_err(|why| anyhow::anyhow!("{why:#}; run `cargo xtask setup-cuda` first"))?;
    println!("nvcc: {}", nvcc.display());
    let binaries = gpu_tests::build(options.release, false)?;
    let Some(check) = binaries.iter().find(|exe| exe.bundle_name == DEVICE_CHECK) else {
        bail!("the device check {DEVICE_CHECK} was not built");
    };
    let checked = gpu_tests::run_binary(check, &[], true)?;
    if !checked.success || checked.totals.passed == 0 {
        bail!("no usable CUDA device: the device check {DEVICE_CHECK} failed (its output above says why)");
    }
    let mut totals = checked.totals;
    let mut failed = Vec::new();
    for exe in binaries.iter().filter(|exe| exe.bundle_name != DEVICE_CHECK) {
        let run = gpu_tests::run_binary(exe, &options.test_args, true)?;
        totals.merge(run.totals);
        if !run.success {
            failed.push(run.name);
        }
    }
    section("test-gpu: summary");
    println!("GPU tests ({} binaries): {}", binaries.len(), totals.detail_line());
    println!("tests: {}", totals.closing_line());
    if !failed.is_empty() {
        bail!("GPU test binaries failed: {}", failed.join(", "));
    }
    // A device is required, so no test may have skipped; a skip here means the tests and this
    // command disagree about HEGPU_REQUIRE_GPU.
    if totals.skipped > 0 {
        bail!("{} GPU tests skipped although a device is required", totals.skipped);
    }
    Ok(())
}
