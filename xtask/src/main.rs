//! `cargo xtask <command>`: the project's automation, in Rust (see `cargo xtask help`).
//!
//! One module per command. Dependencies are kept to `anyhow` and `serde_json`, and for the
//! PNG of `plot` `plotters` and `dejavu` (an embedded font); arguments are parsed by hand.

mod bench;
mod bundle;
mod ci;
mod cuda;
mod fuzz;
mod gpu_tests;
mod kernels;
mod perf;
mod plot;
mod python;
mod roofline;
mod setup_cuda;
mod test;
mod test_gpu;
mod util;

use std::process::ExitCode;

use anyhow::{Result, bail};

const HELP: &str = "\
cargo xtask <command> [options]

commands:
  test [--cpu-only]        every test of the workspace (CPU), then, when nvcc is found, the GPU tests built
                           with `cuda` (poly-cuda's and the tests/gpu*.rs elsewhere; CPU tests run once).
                           A GPU test without a device (no driver, or none reported) skips and is counted
                           as skipped, by name (it records itself in the file HEGPU_SKIP_LOG names);
                           a device that cannot be used fails. Ends with `tests: N passed, N failed,
                           N skipped` (skipped = #[ignore]d + no device)
  ci [--cpu-only]          cargo fmt --check, clippy -D warnings (also with `cuda` when nvcc is found),
                           the kernel report, `cargo package` of every crate (the packaged GPU crates
                           built with `cuda`), the quickstart example, then `cargo xtask test`
  package [--cpu-only]     `cargo package` of every crate, then the packaged crates built from their
                           tarballs, the GPU crates with `cuda` when nvcc is found (part of `ci`)
  setup-cuda [--force]     pip-install the pinned CUDA 13.0 compiler into .cuda/pip (idempotent)
  kernels [--arch sm_XY] [FILE.cu ...]
                           compile kernels/*.cu with the shared flags and -Xptxas -v; print registers,
                           shared memory and spills per kernel (default sm_90)
  test-gpu [--release] [-- TEST-ARGS]
                           build with `cuda` and run the GPU tests with a device required
                           (HEGPU_REQUIRE_GPU=1; the device check runs first): fails without a usable device
  bundle [--no-bench] [--no-strip] [--all-tests]
                           build the GPU test and benchmark binaries (release, `cuda`), strip them, and
                           put them with run.sh into .gpu/ for a GPU machine without cargo; GPU tests
                           are poly-cuda's and every `tests/gpu*.rs` of the other `cuda` crates; run.sh
                           fails without a usable device
  bench [--table-only] [-- CRITERION-ARGS]
                           run the criterion CPU benchmarks, then print the transform table
  fuzz [--seconds N] [TARGET ...]
                           build the cargo-fuzz targets of fuzz/ (cargo +nightly fuzz) and run each
                           for N seconds (default 60), one at a time: decode_bfv, decode_bgv,
                           decode_serde, params, helpers, ops_bfv; reproducers go to
                           fuzz/artifacts/<target>/
  plot [--data DIR] [--out FILE.png]
                           read the saved outputs of a same-run comparison with Phantom (DIR, default
                           docs/perf/data/h100/bgv; docs/perf/data/h100/bfv has the BFV round:
                           ours_bfv_R.txt, peer_bfv_R.txt, ours_bgv_R.txt, peer_bgv_R.txt per round R),
                           draw the ratios ours / Phantom per set and operation into FILE.png (default
                           beside the data: docs/perf/data/h100/bgv -> docs/perf/h100-bgv-vs-phantom.png)
                           and print the markdown summary (one line per set)
  roofline [--machine h200|h100] [--data DIR ... | --no-data]
                           per parameter set and operation: the bytes and word products of an ideal
                           implementation and the GPU's lower bound (default the H200;
                           docs/performance.md has the formulas); with our medians from the
                           comparison folders (DIR may repeat; with --machine h100 the default is
                           docs/perf/data/h100/bgv and docs/perf/data/h100/bfv; the H200's
                           comparisons keep their outputs in the git history: pass --data)
  help                     this text
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match dispatch(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("\nxtask: error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

/// Splits `args` at the first `--`: (options, passthrough).
fn split_passthrough(args: &[String]) -> (&[String], Vec<String>) {
    match args.iter().position(|a| a == "--") {
        Some(i) => (&args[..i], args[i + 1..].to_vec()),
        None => (args, Vec::new()),
    }
}

/// Consumes the flags in `known` from `args`; an error names any other argument.
fn flags(command: &str, args: &[String], known: &[&str]) -> Result<Vec<String>> {
    let mut seen = Vec::new();
    for arg in args {
        if known.contains(&arg.as_str()) {
            seen.push(arg.clone());
        } else {
            bail!("`cargo xtask {command}` does not take `{arg}` (see `cargo xtask help`)");
        }
    }
    Ok(seen)
}

fn dispatch(args: &[String]) -> Result<()> {
    let Some((command, rest)) = args.split_first() else {
        print!("{HELP}");
        bail!("no command given");
    };
    let (options, passthrough) = split_passthrough(rest);
    if options.iter().any(|a| a == "--help" || a == "-h") {
        print!("{HELP}");
        return Ok(());
    }
    let no_passthrough = |passthrough: &[String]| -> Result<()> {
        if passthrough.is_empty() { Ok(()) } else { bail!("`cargo xtask {command}` takes no arguments after `--`") }
    };
    match command.as_str() {
        "test" => {
            no_passthrough(&passthrough)?;
            let given = flags(command, options, &["--cpu-only"])?;
            test::run_command(&test::Options { cpu_only: !given.is_empty() }).map(|_| ())
        }
        "ci" => {
            no_passthrough(&passthrough)?;
            let given = flags(command, options, &["--cpu-only"])?;
            ci::run_command(&ci::Options { cpu_only: !given.is_empty() })
        }
        "package" => {
            no_passthrough(&passthrough)?;
            let given = flags(command, options, &["--cpu-only"])?;
            let nvcc = if given.is_empty() { cuda::find_nvcc(&util::project_root()).ok() } else { None };
            ci::package_check(nvcc.as_deref())
        }
        "setup-cuda" => {
            no_passthrough(&passthrough)?;
            let given = flags(command, options, &["--force"])?;
            setup_cuda::run_command(&setup_cuda::Options { force: !given.is_empty() })
        }
        "kernels" => {
            no_passthrough(&passthrough)?;
            let mut parsed = kernels::Options::default();
            let mut iter = options.iter();
            while let Some(arg) = iter.next() {
                match arg.as_str() {
                    "--arch" => match iter.next() {
                        Some(arch) => parsed.arch = arch.clone(),
                        None => bail!("--arch needs a value such as sm_90"),
                    },
                    other if other.starts_with('-') => bail!("`cargo xtask kernels` does not take `{other}`"),
                    file => parsed.files.push(std::path::absolute(file)?),
                }
            }
            kernels::run_command(&parsed)
        }
        "test-gpu" => {
            let given = flags(command, options, &["--release"])?;
            test_gpu::run_command(&test_gpu::Options { release: !given.is_empty(), test_args: passthrough })
        }
        "bundle" => {
            no_passthrough(&passthrough)?;
            let given = flags(command, options, &["--no-bench", "--no-strip", "--all-tests"])?;
            bundle::run_command(&bundle::Options {
                no_bench: given.iter().any(|g| g == "--no-bench"),
                no_strip: given.iter().any(|g| g == "--no-strip"),
                all_tests: given.iter().any(|g| g == "--all-tests"),
            })
        }
        "bench" => {
            let given = flags(command, options, &["--table-only"])?;
            bench::run_command(&bench::Options { table_only: !given.is_empty(), bench_args: passthrough })
        }
        "fuzz" => {
            no_passthrough(&passthrough)?;
            fuzz::run_command(&fuzz::parse(options)?)
        }
        "plot" => {
            no_passthrough(&passthrough)?;
            perf::run_command(&perf::parse(options)?)
        }
        "roofline" => {
            no_passthrough(&passthrough)?;
            roofline::run_command(&roofline::parse(options)?)
        }
        "help" | "--help" | "-h" => {
            print!("{HELP}");
            Ok(())
        }
        other => {
            print!("{HELP}");
            bail!("unknown command `{other}`")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(args: &[&str]) -> Vec<String> {
        args.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn passthrough_starts_after_the_first_double_dash() {
        let args = strings(&["--release", "--", "ntt", "--", "x"]);
        let (options, passthrough) = split_passthrough(&args);
        assert_eq!(options, strings(&["--release"]));
        assert_eq!(passthrough, strings(&["ntt", "--", "x"]));
    }

    #[test]
    fn unknown_flags_and_commands_are_errors() {
        assert!(dispatch(&strings(&["test", "--gpu"])).is_err());
        assert!(dispatch(&strings(&["frobnicate"])).is_err());
        assert!(dispatch(&[]).is_err());
        assert!(dispatch(&strings(&["setup-cuda", "--", "x"])).is_err());
        assert!(dispatch(&strings(&["plot", "--help"])).is_ok());
    }
}
