//! `cargo xtask bundle`: builds the GPU test binaries and GPU benchmark binaries in
//! release mode with feature `cuda`, strips them, and copies them with a `run.sh` into
//! `<workspace>/.gpu/` (git-ignored), for a GPU machine that has no cargo:
//!
//! ```text
//! .gpu/run.sh            unpacks the payload, runs every test, then (optionally)
//!                        compute-sanitizer, then benchmarks
//! .gpu/payload.tar.xz    tests/<package>--<target> and bench/<package>--<binary>
//! .gpu/MANIFEST.txt      what was built, from which commit
//! ```
//!
//! Every binary embeds the same kernel fatbins, so one solid xz archive (64 MiB dictionary)
//! is several times smaller than the binaries: about 9 MiB for 70 MiB of them.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::cuda;
use crate::gpu_tests::{
    self, ALL_GPU_TEST_PACKAGES, DEVICE_CHECK, Executable, GPU_TEST_PREFIX, executables_from_messages,
};
use crate::util::{cargo, display, project_root, run, run_capture, section, workspace_packages};

/// The device tool carries at most 64 MiB; leave room for the rest of the tree.
const MAX_BUNDLE_BYTES: u64 = 64 * 1024 * 1024;
/// The package holding the GPU benchmark binaries (`benches/src/bin/*`).
const BENCH_PACKAGE: &str = "benches";

#[derive(Debug, Default)]
pub struct Options {
    /// Do not build or bundle the GPU benchmark binaries.
    pub no_bench: bool,
    /// Copy the binaries without stripping them (keeps symbols for backtraces).
    pub no_strip: bool,
    /// Bundle every test binary of the `cuda` packages, CPU tests too.
    pub all_tests: bool,
}

/// Packs `tests/` and `bench/` of the bundle into `payload.tar.xz` (solid, `xz -9`, whose
/// 64 MiB dictionary spans the binaries' shared fatbins) and removes them; returns its size.
fn pack_payload(bundle: &Path) -> Result<u64> {
    let payload = bundle.join("payload.tar.xz");
    let mut pack = Command::new("bash");
    pack.current_dir(bundle).args(["-c", "set -o pipefail; tar -cf - tests bench | xz -9 -T1 > payload.tar.xz"]);
    run(&mut pack)?;
    for dir in ["tests", "bench"] {
        std::fs::remove_dir_all(bundle.join(dir)).with_context(|| format!("could not remove {dir}/ after packing"))?;
    }
    Ok(std::fs::metadata(&payload)?.len())
}

pub fn run_command(options: &Options) -> Result<()> {
    let root = project_root();
    section("bundle: GPU test and benchmark binaries into .gpu/");
    let nvcc = cuda::find_nvcc(&root).map_err(|why| anyhow::anyhow!("{why:#}; run `cargo xtask setup-cuda`"))?;
    println!("nvcc: {}", nvcc.display());

    let packages = workspace_packages()?;
    let tests = gpu_tests::build(true, options.all_tests)?;
    if !options.all_tests {
        println!(
            "bundled: the GPU tests (every test of {ALL_GPU_TEST_PACKAGES:?}, elsewhere tests/{GPU_TEST_PREFIX}*.rs); \
             --all-tests adds the CPU tests of the `cuda` packages"
        );
    }

    let benches_have_cuda = packages.iter().any(|p| p.name == BENCH_PACKAGE && p.has_cuda_feature);
    let benches = if options.no_bench {
        println!("GPU benchmarks: skipped (--no-bench)");
        Vec::new()
    } else if !benches_have_cuda {
        println!("GPU benchmarks: none bundled: the `{BENCH_PACKAGE}` package has no `cuda` feature yet");
        Vec::new()
    } else {
        let mut bench_build = cargo();
        bench_build.args(["build", "--release", "--bins", "--message-format=json-render-diagnostics", "-p"]);
        bench_build.args([BENCH_PACKAGE, "--features", &format!("{BENCH_PACKAGE}/cuda")]);
        let dirs = crate::gpu_tests::package_dirs(&packages);
        executables_from_messages(&run_capture(&mut bench_build)?, &dirs, false)?
    };

    let bundle = root.join(".gpu");
    if bundle.exists() {
        std::fs::remove_dir_all(&bundle).with_context(|| format!("could not remove {}", bundle.display()))?;
    }
    let mut total = 0;
    total += install(&tests, &bundle.join("tests"), !options.no_strip)?;
    total += install(&benches, &bundle.join("bench"), !options.no_strip)?;
    let python = bundle_python(&root, &bundle)?;
    write_file(&bundle.join("run.sh"), &RUN_SH.replace("@DEVICE_CHECK@", DEVICE_CHECK), true)?;
    write_file(&bundle.join("MANIFEST.txt"), &manifest(&root, &nvcc, &tests, &benches), false)?;
    let unpacked = total;
    total = pack_payload(&bundle)?;
    total += std::fs::metadata(bundle.join("run.sh"))?.len() + python;

    println!(
        "\n.gpu/ holds {} test and {} benchmark binaries, {:.1} MiB, packed into {:.1} MiB",
        tests.len(),
        benches.len(),
        mib(unpacked),
        mib(total)
    );
    for exe in tests.iter().chain(&benches) {
        println!("  {}", exe.bundle_name);
    }
    if total > MAX_BUNDLE_BYTES {
        bail!("the bundle is {:.1} MiB, over the {} MiB the device tool carries", mib(total), MAX_BUNDLE_BYTES >> 20);
    }
    println!("run it on the GPU machine (device tool, carry [\".gpu\"]): bash .gpu/run.sh 2>&1 | tee $OUT/log");
    println!(
        "  options: --sanitize (compute-sanitizer memcheck), --racecheck, --no-tests, --no-bench; see .gpu/run.sh"
    );
    Ok(())
}

/// The Python package built with `cuda` (the wheel), its tests and examples, into
/// `.gpu/python/`; run.sh installs the wheel there and runs pytest when the machine's python3
/// has numpy, pytest and hypothesis. Returns the bytes written.
fn bundle_python(root: &Path, bundle: &Path) -> Result<u64> {
    section("bundle: the Python package (wheel with `cuda`, tests, examples)");
    let python = crate::python::environment()?;
    let wheel = crate::python::build_wheel(&python, true)?;
    let dir = bundle.join("python");
    std::fs::create_dir_all(&dir)?;
    let name = wheel.file_name().context("the wheel has no name")?;
    let mut bytes = std::fs::copy(&wheel, dir.join(name))?;
    for sub in ["tests", "examples"] {
        let from = root.join("crates/python").join(sub);
        let to = dir.join(sub);
        std::fs::create_dir_all(&to)?;
        for entry in std::fs::read_dir(&from)? {
            let path = entry?.path();
            if path.extension().is_some_and(|e| e == "py") {
                let name = path.file_name().context("a file without a name")?;
                bytes += std::fs::copy(&path, to.join(name))?;
            }
        }
    }
    Ok(bytes)
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// Copies (and strips) the executables into `dir`; returns the bytes written.
fn install(executables: &[Executable], dir: &Path, strip: bool) -> Result<u64> {
    if executables.is_empty() {
        return Ok(0);
    }
    std::fs::create_dir_all(dir).with_context(|| format!("could not create {}", dir.display()))?;
    let mut total = 0;
    for exe in executables {
        let destination = dir.join(&exe.bundle_name);
        if strip {
            let mut cmd = Command::new("strip");
            cmd.arg("--strip-all").arg("-o").arg(&destination).arg(&exe.path);
            if let Err(err) = run(&mut cmd) {
                println!("strip failed ({err:#}); copying unstripped: {}", display(&cmd));
                std::fs::copy(&exe.path, &destination)?;
            }
        } else {
            std::fs::copy(&exe.path, &destination)
                .with_context(|| format!("could not copy {} to {}", exe.path.display(), destination.display()))?;
        }
        total += std::fs::metadata(&destination)?.len();
    }
    Ok(total)
}

fn write_file(path: &Path, contents: &str, executable: bool) -> Result<()> {
    std::fs::write(path, contents).with_context(|| format!("could not write {}", path.display()))?;
    if executable {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))?;
    }
    Ok(())
}

fn manifest(root: &Path, nvcc: &Path, tests: &[Executable], benches: &[Executable]) -> String {
    let commit = Command::new("git")
        .current_dir(root)
        .args(["describe", "--always", "--dirty"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_else(|| "unknown".to_owned());
    let mut text = format!("built by `cargo xtask bundle` from {commit}\nnvcc: {}\n\ntests:\n", nvcc.display());
    for exe in tests {
        text.push_str(&format!("  {}\n", exe.bundle_name));
    }
    text.push_str("benchmarks:\n");
    for exe in benches {
        text.push_str(&format!("  {}\n", exe.bundle_name));
    }
    text
}

/// The script that runs on the GPU machine.
const RUN_SH: &str = r#"#!/usr/bin/env bash
# Generated by `cargo xtask bundle`; runs on a GPU machine without cargo.
#
#   bash .gpu/run.sh [--sanitize] [--racecheck] [--no-tests] [--no-bench] [-- ARGS for the test binaries]
#
# 0. the device check (tests/@DEVICE_CHECK@): without a usable CUDA device nothing else runs and
#    the script fails (a GPU machine whose driver or device is broken must not pass);
# 1. every other test binary in tests/ (a failure does not stop the rest), with --show-output so
#    that passing tests print their random cases' seeds ("gpu cases: ..." lines, repeated in
#    the summary; PROPTEST_RNG_SEED=<seed> draws the same cases again);
# 2. with --sanitize (or SANITIZE=1): compute-sanitizer --tool memcheck over each test binary,
#    with --racecheck (or RACECHECK=1) also --tool racecheck; SANITIZER_TEST_ARGS is given to the
#    test binaries there (e.g. a filter, to keep sizes small; a binary whose tests are all
#    filtered out makes no CUDA call, which --require-cuda-init no accepts);
# 3. every benchmark binary in bench/ (BENCH_ARGS is given to each); each checks its outputs
#    against the CPU reference before timing and fails on a mismatch.
# Logs go to $OUT if set (else .gpu/logs): device.txt, tests.log, sanitizer.log, bench.log,
# summary.txt. STEP_TIMEOUT (seconds, default 300) bounds each binary. The summary comes last.
# A failing random case prints a `cc <hex>` line: add it to the test's
# tests/<file>.proptest-regressions in the workspace and commit it to replay it in every run.
set -uo pipefail
# On the GPU machine a missing device is a failure, never a skip (hegpu_test_support::open_device_or_skip).
export HEGPU_REQUIRE_GPU=1

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ -f "$here/payload.tar.xz" ]]; then
  tar -C "$here" -xJf "$here/payload.tar.xz" || { echo "run.sh: could not unpack payload.tar.xz" >&2; exit 1; }
fi
log_dir="${OUT:-$here/logs}"
mkdir -p "$log_dir"
sanitize="${SANITIZE:-0}"
racecheck="${RACECHECK:-0}"
run_tests=1
run_bench=1
test_args=()
while (($#)); do
  case "$1" in
    --sanitize) sanitize=1 ;;
    --racecheck) sanitize=1; racecheck=1 ;;
    --no-tests) run_tests=0 ;;
    --no-bench) run_bench=0 ;;
    --) shift; test_args=("$@"); break ;;
    *) echo "run.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
step_timeout="${STEP_TIMEOUT:-300}"
read -r -a sanitizer_test_args <<<"${SANITIZER_TEST_ARGS:-}"
read -r -a bench_args <<<"${BENCH_ARGS:-}"

summary=()
passed=0
failed=0

# step LABEL LOGFILE COMMAND...: runs COMMAND under a time limit, output to the terminal and LOGFILE.
step() {
  local label="$1" log="$2"
  shift 2
  local start=$SECONDS
  echo "=== $label" | tee -a "$log"
  timeout --kill-after=10 "$step_timeout" "$@" 2>&1 | tee -a "$log"
  local rc=${PIPESTATUS[0]}
  local seconds=$((SECONDS - start))
  if ((rc == 0)); then
    passed=$((passed + 1))
    summary+=("PASS  $label (${seconds}s)")
  else
    failed=$((failed + 1))
    local why="exit $rc"
    if ((rc == 124 || rc == 137)); then why="timed out after ${step_timeout}s"; fi
    summary+=("FAIL  $label ($why, ${seconds}s)")
  fi
  echo | tee -a "$log"
}

{
  echo "bundle: $(head -n 1 "$here/MANIFEST.txt" 2>/dev/null)"
  echo "host: $(uname -srm), $(nproc) cores"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 || echo "nvidia-smi failed"
} | tee "$log_dir/device.txt"

shopt -s nullglob
device_check="$here/tests/@DEVICE_CHECK@"
test_binaries=()
for binary in "$here"/tests/*; do
  if [[ "$binary" != "$device_check" ]]; then test_binaries+=("$binary"); fi
done
bench_binaries=("$here"/bench/*)

write_summary() {
  {
    echo
    echo "=== summary"
    for line in "${summary[@]}"; do echo "$line"; done
    if [[ -f "$log_dir/tests.log" ]]; then
      grep -h '^gpu cases:' "$log_dir/tests.log" | sort -u
    fi
    echo "$passed passed, $failed failed"
  } | tee "$log_dir/summary.txt"
}

: >"$log_dir/tests.log"
if [[ -x "$device_check" ]]; then
  step "device check $(basename "$device_check")" "$log_dir/tests.log" "$device_check" --show-output
else
  failed=$((failed + 1))
  summary+=("FAIL  device check (tests/@DEVICE_CHECK@ is not in the bundle)")
fi
if ((failed > 0)); then
  summary+=("STOP  no usable CUDA device (the device check's output above says why): nothing else was run")
  write_summary
  exit 1
fi

if ((run_tests)); then
  for binary in "${test_binaries[@]}"; do
    step "test $(basename "$binary")" "$log_dir/tests.log" "$binary" --show-output "${test_args[@]}"
  done
fi

# The Python package's tests over the wheel built with `cuda` (python/), when python3 has what
# they need; Dask's tests skip without Dask.
if ((run_tests)) && [[ -d "$here/python" ]]; then
  if python3 -c 'import numpy, pytest, hypothesis' 2>/dev/null; then
    rm -rf "$here/python/site"
    python3 -m pip install -q --no-index --no-deps --no-compile --target "$here/python/site" "$here"/python/*.whl >/dev/null
    step "python pytest (hegpu wheel)" "$log_dir/tests.log" \
      env PYTHONPATH="$here/python/site${PYTHONPATH:+:$PYTHONPATH}" python3 -m pytest -q -rs -p no:cacheprovider "$here/python/tests"
  else
    summary+=("SKIP  python pytest: python3 here lacks numpy, pytest or hypothesis")
  fi
fi

if ((sanitize)); then
  sanitizer="$(command -v compute-sanitizer || true)"
  for candidate in /usr/local/cuda/bin/compute-sanitizer /usr/local/cuda/compute-sanitizer/compute-sanitizer; do
    if [[ -z "$sanitizer" && -x "$candidate" ]]; then sanitizer="$candidate"; fi
  done
  : >"$log_dir/sanitizer.log"
  if [[ -z "$sanitizer" ]]; then
    failed=$((failed + 1))
    summary+=("FAIL  compute-sanitizer (not found on this machine)")
  else
    tools=(memcheck)
    if ((racecheck)); then tools+=(racecheck); fi
    for tool in "${tools[@]}"; do
      for binary in "${test_binaries[@]}"; do
        step "$tool $(basename "$binary")" "$log_dir/sanitizer.log" \
          "$sanitizer" --tool "$tool" --error-exitcode 99 --require-cuda-init no "$binary" "${sanitizer_test_args[@]}"
      done
    done
  fi
fi

if ((run_bench)); then
  : >"$log_dir/bench.log"
  for binary in "${bench_binaries[@]}"; do
    step "bench $(basename "$binary")" "$log_dir/bench.log" "$binary" "${bench_args[@]}"
  done
fi

write_summary
((failed == 0))
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_sh_runs_the_device_check_first_and_requires_a_device() {
        let script = RUN_SH.replace("@DEVICE_CHECK@", DEVICE_CHECK);
        assert!(!script.contains("@DEVICE_CHECK@"), "a placeholder was left in run.sh");
        let check = script.find(&format!("device_check=\"$here/tests/{DEVICE_CHECK}\"")).unwrap();
        let tests = script.find("for binary in \"${test_binaries[@]}\"").unwrap();
        assert!(check < tests);
        assert!(script.contains("export HEGPU_REQUIRE_GPU=1\n"));
        assert!(script.contains("--show-output"));
    }
}
