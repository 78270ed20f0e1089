//! The Python package's tests, run by `cargo xtask test`: a virtual environment of its own
//! (`target/python-venv`, made once with `python3 -m venv`, the pinned tools installed with pip),
//! the abi3 wheel built by maturin from `crates/python` (with `cuda` when nvcc is there, as the
//! GPU tests are), installed into it, and pytest over `crates/python/tests`. The counts come
//! from pytest's JUnit report and join the summary line; the GPU cases skip without a device and
//! are counted as skipped, by name.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::util::{TestTotals, project_root, run, section, target_dir};

/// What the environment gets, pinned (a change re-installs them).
const REQUIREMENTS: [&str; 5] =
    ["maturin==1.16.0", "numpy==2.4.6", "pytest==9.2.0", "hypothesis==6.170.17", "dask[distributed]==2026.8.0"];

/// The Python package's crate.
const CRATE: &str = "crates/python";

/// The result of one pytest run.
#[derive(Debug)]
pub struct PythonRun {
    pub totals: TestTotals,
    /// `test id: reason` of every skipped test.
    pub skipped: Vec<String>,
    pub success: bool,
}

fn venv_python(venv: &Path) -> PathBuf {
    venv.join("bin").join("python")
}

/// The environment, made and filled when missing or when the pins changed.
pub fn environment() -> Result<PathBuf> {
    let venv = target_dir().join("python-venv");
    let python = venv_python(&venv);
    if !python.exists() {
        run(Command::new("python3").args(["-m", "venv"]).arg(&venv))
            .context("python3 -m venv failed: the Python tests need CPython >= 3.9 with venv")?;
    }
    let stamp = venv.join("hegpu-requirements.txt");
    let wanted = REQUIREMENTS.join("\n");
    if std::fs::read_to_string(&stamp).ok().as_deref() != Some(wanted.as_str()) {
        run(Command::new(&python).args(["-m", "pip", "install", "-q", "--upgrade"]).args(REQUIREMENTS))?;
        std::fs::write(&stamp, wanted)?;
    }
    Ok(python)
}

/// Builds the wheel (release, `cuda` when `cuda`) and installs it into the environment.
/// Returns the wheel's path.
pub fn build_wheel(python: &Path, cuda: bool) -> Result<PathBuf> {
    let root = project_root();
    let out = target_dir().join("wheels").join(if cuda { "cuda" } else { "cpu" });
    if out.exists() {
        std::fs::remove_dir_all(&out)?;
    }
    let mut build = Command::new(python);
    build.args(["-m", "maturin", "build", "--release", "--quiet", "-m"]).arg(root.join(CRATE).join("Cargo.toml"));
    build.arg("-o").arg(&out);
    if cuda {
        build.args(["--features", "cuda"]);
    }
    run(&mut build)?;
    let wheel = std::fs::read_dir(&out)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .find(|path| path.extension().is_some_and(|e| e == "whl"))
        .context("maturin built no wheel")?;
    run(Command::new(python).args(["-m", "pip", "install", "-q", "--force-reinstall", "--no-deps"]).arg(&wheel))?;
    Ok(wheel)
}

/// Builds and installs the package, runs pytest, and reads its counts.
pub fn run_tests(cuda: bool) -> Result<PythonRun> {
    section("test: Python package (maturin wheel, pytest)");
    let python = environment()?;
    let wheel = build_wheel(&python, cuda)?;
    println!("wheel: {}", wheel.display());
    let report = target_dir().join("python-junit.xml");
    let status = Command::new(&python)
        .args(["-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider"])
        .arg(format!("--junitxml={}", report.display()))
        .arg(project_root().join(CRATE).join("tests"))
        .status()
        .context("could not run pytest")?;
    let xml =
        std::fs::read_to_string(&report).with_context(|| format!("pytest wrote no report at {}", report.display()))?;
    let (totals, skipped) = parse_junit(&xml)?;
    Ok(PythonRun { totals, skipped, success: status.success() })
}

/// The value of `name="..."` in `tag`.
fn attribute<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!("{name}=\"");
    let start = if tag.starts_with(&key) { 0 } else { tag.find(&format!(" {key}"))? + 1 } + key.len();
    let end = tag[start..].find('"')? + start;
    Some(&tag[start..end])
}

/// Counts and skipped tests from pytest's JUnit XML.
fn parse_junit(xml: &str) -> Result<(TestTotals, Vec<String>)> {
    let Some(start) = xml.find("<testsuite ") else { bail!("no <testsuite> in pytest's report") };
    let tag = &xml[start..start + xml[start..].find('>').unwrap_or(0)];
    let count = |name: &str| -> Result<u64> {
        attribute(tag, name).with_context(|| format!("no {name} in pytest's report"))?.parse().context("a count")
    };
    let (tests, failures, errors, skipped) = (count("tests")?, count("failures")?, count("errors")?, count("skipped")?);
    let totals = TestTotals {
        passed: tests.saturating_sub(failures + errors + skipped),
        failed: failures + errors,
        ignored: 0,
        skipped,
    };
    let mut names = Vec::new();
    for case in xml.split("<testcase ").skip(1) {
        let Some(skip) = case.find("<skipped ") else { continue };
        // Only this test case's skip (the next case starts after it).
        let end = case.find("</testcase>").unwrap_or(case.len());
        if skip > end {
            continue;
        }
        let name = attribute(case, "name").unwrap_or("?");
        let class = attribute(case, "classname").unwrap_or("?");
        let reason = attribute(&case[skip..], "message").unwrap_or("");
        names.push(format!("  {class}::{name}: {reason}"));
    }
    Ok((totals, names))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn junit_counts_and_skips() -> Result<()> {
        let xml = r#"<?xml version="1.0"?><testsuites name="pytest tests"><testsuite name="pytest" errors="1" failures="2" skipped="3" tests="10" time="1.0"><testcase classname="tests.test_gpu" name="test_a[bfv-gpu]" time="0"><skipped type="pytest.skip" message="no CUDA device">x</skipped></testcase><testcase classname="t" name="ok" time="0" /></testsuite></testsuites>"#;
        let (totals, skipped) = parse_junit(xml)?;
        assert_eq!((totals.passed, totals.failed, totals.skipped), (4, 3, 3));
        assert_eq!(skipped, vec!["  tests.test_gpu::test_a[bfv-gpu]: no CUDA device".to_owned()]);
        Ok(())
    }
}
