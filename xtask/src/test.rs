//! `cargo xtask test`: the README's test command. Every CPU test of the workspace, then,
//! when nvcc is available, the packages with a `cuda` feature built with it. GPU tests
//! skip at run time, saying so, when no device exists, so this passes on any machine.

use anyhow::Result;

use crate::cuda;
use crate::util::{
    TestTotals, cargo, cuda_package_args, cuda_packages, nvidia_device_present, project_root, run_tests, section,
};

#[derive(Debug, Default)]
pub struct Options {
    /// Do not build or run the `cuda` feature even if nvcc is found.
    pub cpu_only: bool,
}

/// Runs the tests; returns the totals over every test binary (the summary's last line).
pub fn run_command(options: &Options) -> Result<TestTotals> {
    section("test: CPU tests of the whole workspace");
    let mut totals = run_tests(cargo().args(["test", "--workspace", "--no-fail-fast"]))?;

    section("test: GPU tests (feature `cuda`)");
    let gpu_summary = if options.cpu_only {
        "GPU tests were not built: --cpu-only was given".to_owned()
    } else {
        match cuda::find_nvcc(&project_root()) {
            Err(why) => format!(
                "GPU tests were not built: {why:#}.\n  Install the pinned compiler with `cargo xtask setup-cuda` to build them."
            ),
            Ok(nvcc) => {
                let packages = cuda_packages()?;
                if packages.is_empty() {
                    "GPU tests were not built: no workspace package has a `cuda` feature yet".to_owned()
                } else {
                    println!("nvcc: {}", nvcc.display());
                    totals
                        .merge(run_tests(cargo().args(["test", "--no-fail-fast"]).args(cuda_package_args(&packages)))?);
                    let device = if nvidia_device_present() {
                        "an NVIDIA device is present, so they ran on it"
                    } else {
                        "no NVIDIA device here, so their GPU parts skipped at run time"
                    };
                    format!("GPU tests of {} were built with nvcc and passed; {device}", packages.join(", "))
                }
            }
        }
    };
    section("test: summary");
    println!("CPU tests: passed");
    println!("{gpu_summary}");
    println!("tests: {}", totals.closing_line());
    Ok(totals)
}
