//! `cargo xtask test-gpu`: builds the packages with a `cuda` feature and runs their tests,
//! on a GPU machine that has cargo. Unlike `test`, a missing nvcc is an error, and a
//! missing device is reported loudly (the tests themselves would only skip).

use anyhow::{Result, bail};

use crate::cuda;
use crate::util::{cargo, cuda_package_args, cuda_packages, nvidia_device_present, project_root, run, section};

#[derive(Debug, Default)]
pub struct Options {
    /// Build in release mode (faster GPU tests, slower build).
    pub release: bool,
    /// Passed to the test binaries after `--`.
    pub test_args: Vec<String>,
}

pub fn run_command(options: &Options) -> Result<()> {
    section("test-gpu: GPU tests (feature `cuda`)");
    let nvcc = cuda::find_nvcc(&project_root())
        .map_err(|why| anyhow::anyhow!("{why:#}; run `cargo xtask setup-cuda` first"))?;
    println!("nvcc: {}", nvcc.display());
    if !nvidia_device_present() {
        println!("WARNING: no NVIDIA device found (no /dev/nvidiactl, no working nvidia-smi): GPU tests will skip");
    }
    let packages = cuda_packages()?;
    if packages.is_empty() {
        bail!("no workspace package has a `cuda` feature");
    }
    let mut cmd = cargo();
    cmd.arg("test").args(cuda_package_args(&packages));
    if options.release {
        cmd.arg("--release");
    }
    if !options.test_args.is_empty() {
        cmd.arg("--").args(&options.test_args);
    }
    run(&mut cmd)
}
