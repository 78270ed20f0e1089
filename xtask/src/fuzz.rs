//! `cargo xtask fuzz [--seconds N] [TARGET ...]`: builds the cargo-fuzz targets of `fuzz/`
//! (nightly toolchain, `cargo +nightly fuzz`) and runs each for `N` seconds (default 60), one
//! after the other (never in parallel), with a fixed RSS limit; a crash stops the run and
//! leaves its reproducer in `fuzz/artifacts/<target>/`. Copy a reproducer into
//! `fuzz/regressions/<target>/` to keep it as a regression test on stable
//! (`crates/bfv/tests/fuzz_regressions.rs`, run by `cargo xtask test`).

use std::process::Command;

use anyhow::{Result, bail};

use crate::util::{project_root, run, section};

/// Every target, in the order they run.
pub const TARGETS: [&str; 7] =
    ["decode_bfv", "decode_bgv", "decode_serde", "params", "helpers", "public_api", "ops_bfv"];

#[derive(Debug)]
pub struct Options {
    pub seconds: u64,
    pub targets: Vec<String>,
}

/// Parses `--seconds N` and target names.
pub fn parse(options: &[String]) -> Result<Options> {
    let mut parsed = Options { seconds: 60, targets: Vec::new() };
    let mut iter = options.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--seconds" => match iter.next().map(|s| s.parse::<u64>()) {
                Some(Ok(seconds)) if seconds > 0 => parsed.seconds = seconds,
                _ => bail!("--seconds needs a positive whole number"),
            },
            other if other.starts_with('-') => bail!("`cargo xtask fuzz` does not take `{other}`"),
            target if TARGETS.contains(&target) => parsed.targets.push(target.to_owned()),
            target => bail!("unknown fuzz target `{target}` (targets: {})", TARGETS.join(", ")),
        }
    }
    if parsed.targets.is_empty() {
        parsed.targets = TARGETS.iter().map(|t| (*t).to_owned()).collect();
    }
    Ok(parsed)
}

fn cargo_fuzz() -> Command {
    let mut cmd = Command::new("cargo");
    cmd.current_dir(project_root().join("fuzz"));
    // rust-toolchain.toml pins stable in the workspace; cargo fuzz needs nightly.
    cmd.env_remove("RUSTUP_TOOLCHAIN").env_remove("CARGO").env_remove("RUSTC");
    cmd.args(["+nightly", "fuzz"]);
    cmd
}

pub fn run_command(options: &Options) -> Result<()> {
    // -a: debug assertions and overflow checks, as the tests build (most of the panics the
    // targets found were overflows that a plain -O build does not check).
    section("fuzz: build (cargo +nightly fuzz build -O -a; `cargo install cargo-fuzz` if missing)");
    run(cargo_fuzz().args(["build", "-O", "-a"]))?;
    for target in &options.targets {
        section(&format!("fuzz: {target} for {} s", options.seconds));
        run(cargo_fuzz().args([
            "run",
            "-O",
            "-a",
            target,
            "--",
            &format!("-max_total_time={}", options.seconds),
            "-rss_limit_mb=4096",
            "-print_final_stats=1",
        ]))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_parse() {
        let all = parse(&[]).unwrap();
        assert_eq!((all.seconds, all.targets.len()), (60, TARGETS.len()));
        let some = parse(&["--seconds".into(), "5".into(), "params".into()]).unwrap();
        assert_eq!((some.seconds, some.targets), (5, vec!["params".to_owned()]));
        assert!(parse(&["--seconds".into(), "0".into()]).is_err());
        assert!(parse(&["--seconds".into()]).is_err());
        assert!(parse(&["nope".into()]).is_err());
    }
}
