//! `cargo xtask test`: the README's test command. Every test of the workspace (`cargo test
//! --workspace`, no `cuda`), then, when nvcc is available, the GPU test binaries built with
//! `cuda` (`gpu_tests`: poly-cuda's and the `tests/gpu*.rs` of the other `cuda` packages;
//! the CPU tests are not run twice). Without a device the GPU tests skip and are counted as
//! skipped, by name; a device that is there but cannot be used fails them.

use anyhow::{Result, bail};

use crate::gpu_tests::{self, BinaryRun};
use crate::util::{TestTotals, cargo, project_root, run_tests, section};
use crate::{cuda, python};

#[derive(Debug, Default)]
pub struct Options {
    /// Do not build or run the `cuda` feature even if nvcc is found.
    pub cpu_only: bool,
}

/// Runs the tests; returns the totals over every test binary (the summary's last line). An
/// error, after the summary, when a test failed.
pub fn run_command(options: &Options) -> Result<TestTotals> {
    section("test: every test of the workspace (CPU; GPU tests need feature `cuda`)");
    let cpu = run_tests(cargo().args(["test", "--workspace", "--no-fail-fast"]))?;

    let mut gpu_runs: Vec<BinaryRun> = Vec::new();
    let with_cuda = !options.cpu_only && cuda::find_nvcc(&project_root()).is_ok();
    let gpu_note = if options.cpu_only {
        Some("GPU tests were not built: --cpu-only was given".to_owned())
    } else {
        match cuda::find_nvcc(&project_root()) {
            Err(why) => Some(format!(
                "GPU tests were not built: {why:#}.\n  Install the pinned compiler with `cargo xtask setup-cuda` to build them."
            )),
            Ok(nvcc) => {
                section("test: GPU tests (feature `cuda`)");
                println!("nvcc: {}", nvcc.display());
                for exe in gpu_tests::build(false, false)? {
                    gpu_runs.push(gpu_tests::run_binary(&exe, &[], false)?);
                }
                None
            }
        }
    };

    // The Python package, built with `cuda` when the GPU tests were (its GPU cases skip without
    // a device, counted as skipped).
    let python = python::run_tests(with_cuda)?;

    let mut gpu = TestTotals::default();
    for run in &gpu_runs {
        gpu.merge(run.totals);
    }
    let mut totals = cpu;
    totals.merge(gpu);
    totals.merge(python.totals);
    section("test: summary");
    println!("CPU tests (cargo test --workspace): {}", cpu.detail_line());
    match gpu_note {
        Some(note) => println!("{note}"),
        None => {
            println!("GPU tests ({} binaries built with `cuda`): {}", gpu_runs.len(), gpu.detail_line());
            if gpu.skipped > 0 {
                println!(
                    "skipped: {} GPU tests found no CUDA device here (no driver, or the driver reports none) and checked nothing:",
                    gpu.skipped
                );
                for line in gpu_tests::skipped_lines(&gpu_runs) {
                    println!("{line}");
                }
            }
        }
    }
    println!(
        "Python tests (pytest over the hegpu wheel{}): {}",
        if with_cuda { ", built with `cuda`" } else { "" },
        python.totals.detail_line()
    );
    if !python.skipped.is_empty() {
        println!("skipped: {} Python tests:", python.skipped.len());
        for line in &python.skipped {
            println!("{line}");
        }
    }
    let failed_binaries: Vec<&str> = gpu_runs.iter().filter(|r| !r.success).map(|r| r.name.as_str()).collect();
    println!("tests: {}", totals.closing_line());
    if !failed_binaries.is_empty() {
        bail!("GPU test binaries failed: {}", failed_binaries.join(", "));
    }
    if !python.success {
        bail!("Python tests failed (pytest)");
    }
    Ok(totals)
}
