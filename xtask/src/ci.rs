//! `cargo xtask ci`: formatting, clippy and rustdoc with warnings denied (also with `cuda` when
//! nvcc is available), the kernel resource report, the quickstart example, and `cargo xtask
//! test` (the README's test command), whose totals end the output.

use anyhow::Result;

use crate::util::{cargo, cuda_package_args, cuda_packages, project_root, run, section};
use crate::{cuda, kernels, test};

#[derive(Debug, Default)]
pub struct Options {
    /// Skip everything that needs nvcc.
    pub cpu_only: bool,
}

pub fn run_command(options: &Options) -> Result<()> {
    let started = std::time::Instant::now();
    section("ci: cargo fmt --check");
    run(cargo().args(["fmt", "--all", "--check"]))?;

    section("ci: clippy (CPU)");
    run(cargo().args(["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]))?;

    section("ci: rustdoc (CPU; broken links are errors)");
    run(cargo().env("RUSTDOCFLAGS", "-D warnings").args(["doc", "--no-deps", "--workspace"]))?;

    let nvcc = if options.cpu_only { None } else { cuda::find_nvcc(&project_root()).ok() };
    let cuda_packages = if nvcc.is_some() { cuda_packages()? } else { Vec::new() };
    if let Some(nvcc) = &nvcc {
        println!("\nnvcc: {}", nvcc.display());
        if !cuda_packages.is_empty() {
            section("ci: clippy with feature `cuda` (builds the kernels)");
            run(cargo()
                .args(["clippy", "--all-targets"])
                .args(cuda_package_args(&cuda_packages))
                .args(["--", "-D", "warnings"]))?;
        }
        if !cuda_packages.is_empty() {
            section("ci: rustdoc with feature `cuda` (broken links are errors)");
            run(cargo()
                .env("RUSTDOCFLAGS", "-D warnings")
                .args(["doc", "--no-deps"])
                .args(cuda_package_args(&cuda_packages)))?;
        }
        kernels::run_command(&kernels::Options::default())?;
    } else {
        println!(
            "\nclippy with feature `cuda` and the kernel report were skipped: no nvcc (see `cargo xtask setup-cuda`)"
        );
    }

    section("ci: cargo run --release --example quickstart");
    run(cargo().args(["run", "--release", "--example", "quickstart"]))?;

    // Last, so that its closing line `N passed, N failed, N skipped` ends the CI log.
    section("ci: cargo xtask test (the README's test command)");
    let totals = test::run_command(&test::Options { cpu_only: options.cpu_only })?;

    section(&format!("ci: passed in {} s", started.elapsed().as_secs()));
    println!("tests: {}", totals.closing_line());
    Ok(())
}
