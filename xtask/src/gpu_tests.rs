//! The GPU test binaries, shared by `test`, `test-gpu` and `bundle`: which test targets are GPU
//! tests, how they are built (feature `cuda`), and how one run of a binary is counted.
//!
//! GPU tests are every test binary of `poly-cuda` and, in the other packages with a `cuda`
//! feature, the integration tests named `tests/gpu*.rs`; the other binaries of those packages
//! are CPU tests, which `cargo test --workspace` already runs (building them again with `cuda`
//! would run them twice).
//!
//! Counting skips: a GPU test that finds no device returns early, so libtest reports it as
//! passed. Each such test appends its name to the file named by `HEGPU_SKIP_LOG`
//! (`hegpu_test_support::open_device_or_skip`); [`run_binary`] sets that variable for every
//! binary it runs and counts those tests as skipped, not passed.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

use crate::util::{TestTotals, WorkspacePackage, cargo, display, run_capture, section, target_dir, workspace_packages};

/// Packages whose test binaries are not GPU tests (the test harness has a `cuda` feature for
/// the device of the others).
pub const NOT_GPU_TEST_PACKAGES: [&str; 3] = ["benches", "hegpu", "hegpu-test-support"];
/// Packages all of whose test binaries are GPU tests (the GPU backend itself).
pub const ALL_GPU_TEST_PACKAGES: [&str; 1] = ["poly-cuda"];
/// Elsewhere, an integration test is a GPU test when its name starts with this
/// (`crates/rns/tests/gpu_decrypt.rs`); the other binaries are CPU tests.
pub const GPU_TEST_PREFIX: &str = "gpu";
/// The device check (`crates/poly-cuda/tests/device.rs`): run first, with a device required,
/// by `test-gpu` and `.gpu/run.sh`, which stop when it fails.
pub const DEVICE_CHECK: &str = "poly-cuda--device";
/// `hegpu_test_support::SKIP_LOG_ENV` and `hegpu_test_support::REQUIRE_GPU_ENV` (xtask does not
/// link the test harness).
pub const SKIP_LOG_ENV: &str = "HEGPU_SKIP_LOG";
pub const REQUIRE_GPU_ENV: &str = "HEGPU_REQUIRE_GPU";

/// A built executable and the name it gets in the bundle.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Executable {
    pub bundle_name: String,
    pub path: PathBuf,
    pub package: String,
    /// The target name, `lib` for a library's unit tests.
    pub target: String,
    /// The package's directory: cargo runs its tests there, and so do we.
    pub package_dir: PathBuf,
}

/// Whether a test binary runs GPU tests, by the convention of [`GPU_TEST_PREFIX`].
pub fn is_gpu_test(exe: &Executable) -> bool {
    ALL_GPU_TEST_PACKAGES.contains(&exe.package.as_str()) || exe.target.starts_with(GPU_TEST_PREFIX)
}

/// The cargo target flags that select a package's GPU tests (all of its tests with
/// `all_tests`), or `None` when it has none.
pub fn gpu_target_args(package: &WorkspacePackage, all_tests: bool) -> Option<Vec<String>> {
    if !package.has_cuda_feature || NOT_GPU_TEST_PACKAGES.contains(&package.name.as_str()) {
        return None;
    }
    if all_tests || ALL_GPU_TEST_PACKAGES.contains(&package.name.as_str()) {
        return Some(vec!["--lib".to_owned(), "--tests".to_owned()]);
    }
    let args: Vec<String> = package
        .test_targets
        .iter()
        .filter(|name| name.starts_with(GPU_TEST_PREFIX))
        .flat_map(|name| ["--test".to_owned(), name.clone()])
        .collect();
    (!args.is_empty()).then_some(args)
}

/// Each package's manifest path -> (name, directory): what `executables_from_messages` needs
/// to name an executable and find where it runs.
pub(crate) fn package_dirs(packages: &[crate::util::WorkspacePackage]) -> BTreeMap<PathBuf, (String, PathBuf)> {
    packages
        .iter()
        .map(|p| {
            let dir = p.manifest_path.parent().map(Path::to_path_buf).unwrap_or_default();
            (p.manifest_path.clone(), (p.name.clone(), dir))
        })
        .collect()
}

/// Builds the GPU test binaries with feature `cuda` (`--release` when asked; every test binary
/// of the `cuda` packages with `all_tests`) and returns them, sorted by bundle name.
pub fn build(release: bool, all_tests: bool) -> Result<Vec<Executable>> {
    let packages = workspace_packages()?;
    let dirs = package_dirs(&packages);
    let mut found = Vec::new();
    for package in &packages {
        let Some(targets) = gpu_target_args(package, all_tests) else { continue };
        let mut cmd = cargo();
        cmd.args(["test", "--no-run", "--message-format=json-render-diagnostics", "-p", &package.name]);
        cmd.args(["--features", &format!("{}/cuda", package.name)]).args(&targets);
        if release {
            cmd.arg("--release");
        }
        println!("$ {}", display(&cmd));
        found.extend(executables_from_messages(&run_capture(&mut cmd)?, &dirs, true)?);
    }
    // The target flags select GPU tests only; this keeps a CPU test out if they ever do not.
    found.retain(|exe| all_tests || is_gpu_test(exe));
    if found.is_empty() {
        bail!("no workspace package with a `cuda` feature has GPU tests");
    }
    found.sort_by(|a, b| a.bundle_name.cmp(&b.bundle_name));
    found.dedup_by(|a, b| a.bundle_name == b.bundle_name);
    Ok(found)
}

/// The executables in cargo's `--message-format=json` output: test harnesses when
/// `want_tests`, else plain binaries. Named `<package>--<target>` (`lib` for unit tests).
/// `packages` maps each manifest path to the package's name and directory.
pub fn executables_from_messages(
    messages: &str,
    packages: &BTreeMap<PathBuf, (String, PathBuf)>,
    want_tests: bool,
) -> Result<Vec<Executable>> {
    let mut found = Vec::new();
    for line in messages.lines().filter(|l| l.starts_with('{')) {
        let message: serde_json::Value = serde_json::from_str(line).context("cargo printed an invalid JSON message")?;
        if message["reason"] != "compiler-artifact" {
            continue;
        }
        let Some(executable) = message["executable"].as_str() else { continue };
        if message["profile"]["test"].as_bool() != Some(want_tests) {
            continue;
        }
        let target = &message["target"];
        let kinds: Vec<&str> =
            target["kind"].as_array().map(|k| k.iter().filter_map(|v| v.as_str()).collect()).unwrap_or_default();
        if !want_tests && !kinds.contains(&"bin") {
            continue;
        }
        let manifest = PathBuf::from(message["manifest_path"].as_str().unwrap_or_default());
        let (package, package_dir) = packages
            .get(&manifest)
            .cloned()
            .unwrap_or_else(|| ("unknown".to_owned(), manifest.parent().map(Path::to_path_buf).unwrap_or_default()));
        let target_name = if kinds.contains(&"lib") { "lib" } else { target["name"].as_str().unwrap_or("unknown") };
        found.push(Executable {
            bundle_name: format!("{package}--{target_name}"),
            path: PathBuf::from(executable),
            package,
            target: target_name.to_owned(),
            package_dir,
        });
    }
    found.sort_by(|a, b| a.bundle_name.cmp(&b.bundle_name));
    found.dedup_by(|a, b| a.bundle_name == b.bundle_name);
    Ok(found)
}

/// What one run of a test binary reported.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BinaryRun {
    pub name: String,
    /// Passed, failed, ignored as libtest counts them, skipped as the skip log says (and taken
    /// out of libtest's passed count).
    pub totals: TestTotals,
    /// The tests that skipped for want of a device.
    pub skipped: BTreeSet<String>,
    /// The binary exited with success.
    pub success: bool,
}

/// Runs one GPU test binary in its package's directory with `args`, echoing its output, and
/// counts its tests; with `require_gpu`, a missing device fails its tests instead of skipping
/// them. An error only when the binary cannot be run at all.
pub fn run_binary(exe: &Executable, args: &[String], require_gpu: bool) -> Result<BinaryRun> {
    let skip_dir = target_dir().join("xtask-skips");
    std::fs::create_dir_all(&skip_dir).with_context(|| format!("could not create {}", skip_dir.display()))?;
    let skip_log = skip_dir.join(format!("{}.txt", exe.bundle_name));
    if skip_log.exists() {
        std::fs::remove_file(&skip_log).with_context(|| format!("could not remove {}", skip_log.display()))?;
    }
    let mut cmd = Command::new(&exe.path);
    cmd.args(args).current_dir(&exe.package_dir).env(SKIP_LOG_ENV, &skip_log);
    if require_gpu {
        cmd.env(REQUIRE_GPU_ENV, "1");
    }
    section(&format!("GPU tests: {}", exe.bundle_name));
    let shown = display(&cmd);
    println!("$ {shown}");
    let mut child = cmd.stdout(Stdio::piped()).spawn().with_context(|| format!("could not start `{shown}`"))?;
    let mut libtest = TestTotals::default();
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines() {
            let line = line.with_context(|| format!("could not read the output of `{shown}`"))?;
            println!("{line}");
            libtest.add_result_line(&line);
        }
    }
    let status = child.wait().with_context(|| format!("`{shown}` did not finish"))?;
    let skipped: BTreeSet<String> = match std::fs::read_to_string(&skip_log) {
        Ok(text) => text.lines().map(str::to_owned).collect(),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => BTreeSet::new(),
        Err(error) => return Err(error).with_context(|| format!("could not read {}", skip_log.display())),
    };
    let totals = count_skips(libtest, skipped.len() as u64)
        .with_context(|| format!("{}: the skip log {} disagrees with libtest", exe.bundle_name, skip_log.display()))?;
    Ok(BinaryRun { name: exe.bundle_name.clone(), totals, skipped, success: status.success() })
}

/// libtest's counts with `skipped` tests moved from passed to skipped (a skipping test returns
/// normally, so libtest counted it as passed).
pub fn count_skips(libtest: TestTotals, skipped: u64) -> Result<TestTotals> {
    if skipped > libtest.passed {
        bail!("{skipped} tests recorded a skip but libtest reports only {} passed", libtest.passed);
    }
    Ok(TestTotals { passed: libtest.passed - skipped, skipped, ..libtest })
}

/// The skipped tests of `runs`, one line per binary: `  <binary> (<n>): a, b, ...`.
pub fn skipped_lines(runs: &[BinaryRun]) -> Vec<String> {
    runs.iter()
        .filter(|run| !run.skipped.is_empty())
        .map(|run| {
            let names: Vec<&str> = run.skipped.iter().map(String::as_str).collect();
            format!("  {} ({}): {}", run.name, names.len(), names.join(", "))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package(name: &str, cuda: bool, tests: &[&str]) -> WorkspacePackage {
        WorkspacePackage {
            name: name.to_owned(),
            manifest_path: PathBuf::from(format!("/w/{name}/Cargo.toml")),
            has_cuda_feature: cuda,
            bench_targets: Vec::new(),
            test_targets: tests.iter().map(|t| t.to_string()).collect(),
        }
    }

    #[test]
    fn picks_test_executables_and_names_them_by_package_and_target() {
        let manifest = PathBuf::from("/w/crates/poly-cuda/Cargo.toml");
        let packages =
            BTreeMap::from([(manifest.clone(), ("poly-cuda".to_owned(), PathBuf::from("/w/crates/poly-cuda")))]);
        let messages = [
            r#"{"reason":"compiler-artifact","manifest_path":"/w/crates/poly-cuda/Cargo.toml","target":{"kind":["lib"],"name":"poly_cuda"},"profile":{"test":true},"executable":"/t/release/deps/poly_cuda-abc"}"#,
            r#"{"reason":"compiler-artifact","manifest_path":"/w/crates/poly-cuda/Cargo.toml","target":{"kind":["test"],"name":"ntt"},"profile":{"test":true},"executable":"/t/release/deps/ntt-def"}"#,
            r#"{"reason":"compiler-artifact","manifest_path":"/w/crates/poly-cuda/Cargo.toml","target":{"kind":["lib"],"name":"poly_cuda"},"profile":{"test":false},"executable":null}"#,
            r#"{"reason":"build-finished","success":true}"#,
            "   Compiling something (a line that is not JSON)",
        ]
        .join("\n");
        let found = executables_from_messages(&messages, &packages, true).unwrap();
        let names_found: Vec<(&str, &str, &str)> =
            found.iter().map(|e| (e.bundle_name.as_str(), e.package.as_str(), e.target.as_str())).collect();
        assert_eq!(names_found, [("poly-cuda--lib", "poly-cuda", "lib"), ("poly-cuda--ntt", "poly-cuda", "ntt")]);
        assert_eq!(found[0].path, PathBuf::from("/t/release/deps/poly_cuda-abc"));
        assert_eq!(found[1].package_dir, PathBuf::from("/w/crates/poly-cuda"));
        assert!(executables_from_messages(&messages, &packages, false).unwrap().is_empty());
    }

    #[test]
    fn gpu_tests_are_poly_cuda_or_named_gpu() {
        let exe = |package: &str, target: &str| Executable {
            bundle_name: format!("{package}--{target}"),
            path: PathBuf::new(),
            package: package.into(),
            target: target.into(),
            package_dir: PathBuf::new(),
        };
        assert!(is_gpu_test(&exe("poly-cuda", "lib")));
        assert!(is_gpu_test(&exe("poly-cuda", "ntt")));
        assert!(is_gpu_test(&exe("rns", "gpu_behz")));
        assert!(!is_gpu_test(&exe("rns", "behz")));
        assert!(!is_gpu_test(&exe("bfv", "lib")));
    }

    #[test]
    fn only_gpu_targets_are_built_with_cuda() {
        let poly_cuda = package("poly-cuda", true, &["ntt", "dgt"]);
        assert_eq!(gpu_target_args(&poly_cuda, false).unwrap(), ["--lib", "--tests"]);
        let rns = package("rns", true, &["behz", "gpu", "gpu_decrypt", "keyswitch"]);
        assert_eq!(gpu_target_args(&rns, false).unwrap(), ["--test", "gpu", "--test", "gpu_decrypt"]);
        assert_eq!(gpu_target_args(&rns, true).unwrap(), ["--lib", "--tests"]);
        assert_eq!(gpu_target_args(&package("bfv", true, &["scheme"]), false), None);
        assert_eq!(gpu_target_args(&package("poly", false, &["gpu"]), false), None);
        assert_eq!(gpu_target_args(&package("hegpu", true, &["gpu"]), true), None);
    }

    #[test]
    fn skipped_tests_are_taken_out_of_the_passed_count() {
        let libtest = TestTotals { passed: 12, failed: 1, ignored: 2, skipped: 0 };
        assert_eq!(count_skips(libtest, 9).unwrap(), TestTotals { passed: 3, failed: 1, ignored: 2, skipped: 9 });
        assert_eq!(count_skips(libtest, 0).unwrap(), libtest);
        assert!(count_skips(libtest, 13).is_err());
    }

    #[test]
    fn skipped_lines_name_each_binary_and_test() {
        let run = |name: &str, skipped: &[&str]| BinaryRun {
            name: name.to_owned(),
            skipped: skipped.iter().map(|s| s.to_string()).collect(),
            ..BinaryRun::default()
        };
        let lines = skipped_lines(&[run("poly-cuda--ntt", &["b", "a"]), run("poly-cuda--lib", &[])]);
        assert_eq!(lines, ["  poly-cuda--ntt (2): a, b"]);
    }
}
