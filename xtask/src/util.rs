//! Helpers shared by the commands: the workspace root, running commands visibly,
//! and what `cargo metadata` says about the workspace.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context, Result, bail};

/// The workspace root: the parent of this crate's manifest directory.
pub fn project_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().map(Path::to_path_buf).unwrap_or_else(|| manifest_dir.to_path_buf())
}

/// The cargo that runs us (so the pinned toolchain is used), else `cargo` from PATH.
pub fn cargo() -> Command {
    let program = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(program);
    cmd.current_dir(project_root());
    cmd
}

/// Prints a section header so long CI logs can be scanned.
pub fn section(title: &str) {
    println!("\n==> {title}");
}

/// The command line as a shell would show it.
pub fn display(cmd: &Command) -> String {
    let mut parts = vec![quote(cmd.get_program())];
    parts.extend(cmd.get_args().map(quote));
    parts.join(" ")
}

fn quote(arg: &OsStr) -> String {
    let text = arg.to_string_lossy();
    let plain = !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@".contains(c));
    if plain { text.into_owned() } else { format!("'{}'", text.replace('\'', r"'\''")) }
}

/// Runs a command with inherited stdio, printing it first; an error if it fails.
pub fn run(cmd: &mut Command) -> Result<()> {
    let shown = display(cmd);
    println!("$ {shown}");
    let status = cmd.status().with_context(|| format!("could not start `{shown}`"))?;
    if !status.success() {
        bail!("`{shown}` failed ({status})");
    }
    Ok(())
}

/// Test counts summed over test binaries: libtest's `test result:` lines, and the GPU tests
/// that skipped for want of a device (see `gpu_tests`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct TestTotals {
    pub passed: u64,
    pub failed: u64,
    /// `#[ignore]`d tests.
    pub ignored: u64,
    /// GPU tests that found no device and checked nothing.
    pub skipped: u64,
}

impl TestTotals {
    /// Adds the counts of one `test result: ok. 12 passed; 0 failed; 1 ignored; ...` line.
    pub fn add_result_line(&mut self, line: &str) -> bool {
        let Some(rest) = line.trim().strip_prefix("test result: ") else { return false };
        for part in rest.split(';') {
            let words: Vec<&str> = part.split_whitespace().collect();
            // "ok. 12 passed" or "FAILED. 3 passed" or " 1 failed"
            let (count, what) = match words[..] {
                [_, count, what] | [count, what] => (count, what),
                _ => continue,
            };
            let Ok(count) = count.parse::<u64>() else { continue };
            match what {
                "passed" => self.passed += count,
                "failed" => self.failed += count,
                "ignored" => self.ignored += count,
                _ => {}
            }
        }
        true
    }

    pub fn merge(&mut self, other: TestTotals) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.ignored += other.ignored;
        self.skipped += other.skipped;
    }

    /// The closing line CI reads: `N passed, N failed, N skipped`, where skipped counts the
    /// ignored tests and the GPU tests that found no device.
    pub fn closing_line(&self) -> String {
        format!("{} passed, {} failed, {} skipped", self.passed, self.failed, self.ignored + self.skipped)
    }

    /// The counts with the kinds of skip apart: `N passed, N failed, N ignored, N skipped (no device)`.
    pub fn detail_line(&self) -> String {
        format!(
            "{} passed, {} failed, {} ignored, {} skipped (no device)",
            self.passed, self.failed, self.ignored, self.skipped
        )
    }
}

/// Runs a `cargo test` command, echoing its output, and sums its `test result:` lines; an
/// error when it fails.
pub fn run_tests(cmd: &mut Command) -> Result<TestTotals> {
    use std::io::{BufRead, BufReader};
    let shown = display(cmd);
    println!("$ {shown}");
    let mut child = cmd.stdout(Stdio::piped()).spawn().with_context(|| format!("could not start `{shown}`"))?;
    let mut totals = TestTotals::default();
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines() {
            let line = line.with_context(|| format!("could not read the output of `{shown}`"))?;
            println!("{line}");
            totals.add_result_line(&line);
        }
    }
    let status = child.wait().with_context(|| format!("`{shown}` did not finish"))?;
    if !status.success() {
        bail!("`{shown}` failed ({status}): {}", totals.closing_line());
    }
    Ok(totals)
}

/// Runs a command and returns its standard output; stderr is passed through.
pub fn run_capture(cmd: &mut Command) -> Result<String> {
    let shown = display(cmd);
    let output = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .output()
        .with_context(|| format!("could not start `{shown}`"))?;
    if !output.status.success() {
        bail!("`{shown}` failed ({})", output.status);
    }
    String::from_utf8(output.stdout).with_context(|| format!("`{shown}` printed non-UTF-8 output"))
}

/// Workspace packages, from `cargo metadata --no-deps`.
#[derive(Debug, Clone)]
pub struct WorkspacePackage {
    pub name: String,
    pub manifest_path: PathBuf,
    pub has_cuda_feature: bool,
    /// Names of the package's `[[bench]]` targets.
    pub bench_targets: Vec<String>,
    /// Names of the package's integration test targets (`tests/*.rs`).
    pub test_targets: Vec<String>,
}

pub fn workspace_packages() -> Result<Vec<WorkspacePackage>> {
    let text = run_capture(cargo().args(["metadata", "--format-version", "1", "--no-deps"]))?;
    let metadata: serde_json::Value = serde_json::from_str(&text).context("cargo metadata printed invalid JSON")?;
    let packages = metadata["packages"].as_array().context("cargo metadata has no `packages` array")?;
    let mut result = Vec::new();
    for package in packages {
        let name = package["name"].as_str().context("a package without a name in cargo metadata")?.to_owned();
        let manifest_path =
            PathBuf::from(package["manifest_path"].as_str().context("a package without a manifest path")?);
        let has_cuda_feature = package["features"].get("cuda").is_some();
        let targets_of_kind = |kind: &str| -> Vec<String> {
            package["targets"]
                .as_array()
                .map(|targets| {
                    targets
                        .iter()
                        .filter(|t| t["kind"].as_array().is_some_and(|k| k.iter().any(|k| k == kind)))
                        .filter_map(|t| t["name"].as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default()
        };
        let (bench_targets, test_targets) = (targets_of_kind("bench"), targets_of_kind("test"));
        result.push(WorkspacePackage { name, manifest_path, has_cuda_feature, bench_targets, test_targets });
    }
    Ok(result)
}

/// Cargo's target directory (`CARGO_TARGET_DIR` or `<root>/target`).
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).unwrap_or_else(|| project_root().join("target"))
}

/// The workspace packages that have a `cuda` feature, in metadata order.
pub fn cuda_packages() -> Result<Vec<String>> {
    Ok(workspace_packages()?.into_iter().filter(|p| p.has_cuda_feature).map(|p| p.name).collect())
}

/// `-p a -p b --features a/cuda,b/cuda` for the given packages.
pub fn cuda_package_args(packages: &[String]) -> Vec<String> {
    let mut args = Vec::new();
    for package in packages {
        args.push("-p".to_owned());
        args.push(package.clone());
    }
    args.push("--features".to_owned());
    args.push(packages.iter().map(|p| format!("{p}/cuda")).collect::<Vec<_>>().join(","));
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_quotes_only_what_needs_it() {
        let mut cmd = Command::new("cargo");
        cmd.args(["test", "-p", "poly-cuda", "--features", "poly-cuda/cuda", "a b", "it's"]);
        assert_eq!(display(&cmd), r"cargo test -p poly-cuda --features poly-cuda/cuda 'a b' 'it'\''s'");
    }

    #[test]
    fn cuda_package_args_lists_each_package_and_feature() {
        let args = cuda_package_args(&["poly-cuda".to_owned(), "hegpu".to_owned()]);
        assert_eq!(args, ["-p", "poly-cuda", "-p", "hegpu", "--features", "poly-cuda/cuda,hegpu/cuda"]);
    }

    #[test]
    fn test_result_lines_are_summed() {
        let mut totals = TestTotals::default();
        assert!(totals.add_result_line(
            "test result: ok. 12 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.01s"
        ));
        assert!(totals.add_result_line("test result: FAILED. 3 passed; 2 failed; 0 ignored; 0 measured"));
        assert!(!totals.add_result_line("running 5 tests"));
        assert_eq!(totals, TestTotals { passed: 15, failed: 2, ignored: 1, skipped: 0 });
        assert_eq!(totals.closing_line(), "15 passed, 2 failed, 1 skipped");
        totals.merge(TestTotals { passed: 1, failed: 0, ignored: 0, skipped: 4 });
        assert_eq!(totals.closing_line(), "16 passed, 2 failed, 5 skipped");
        assert_eq!(totals.detail_line(), "16 passed, 2 failed, 1 ignored, 4 skipped (no device)");
    }

    #[test]
    fn project_root_holds_the_workspace_manifest() {
        let manifest = std::fs::read_to_string(project_root().join("Cargo.toml")).unwrap();
        assert!(manifest.contains("[workspace]"));
    }
}
