//! The device of the GPU tests, and random GPU-against-CPU cases through proptest, for the
//! GPU tests of every crate.
//!
//! `device` (feature `cuda`) opens the device once per test binary. Without one (no driver,
//! or the driver reports no device) each test that asks for it is skipped:
//! [`open_device_or_skip`](crate::open_device_or_skip) prints why and records the test in
//! the skip log, which is how `cargo xtask test` counts it as skipped rather than passed.
//! Every other failure to open the device fails the test.
//!
//! [`check`] runs a stated number of cases drawn from a strategy over the parameters (degrees,
//! limb counts, prime sizes, variants, transforms, data seeds). Per test it prints one line,
//! `gpu cases: <test>: <n> random cases + <k> committed regressions, seed <s>`, before the
//! first case (`.gpu/run.sh` runs the test binaries with `--show-output`, so passing tests
//! show it too):
//!
//! - the seed is random; `PROPTEST_RNG_SEED=<s>` draws the same cases again, and
//!   `PROPTEST_CASES` changes their number;
//! - a failing case is shrunk (a bounded number of steps: each step runs the GPU and the CPU
//!   reference) and reported with its seed and a `cc <hex>` line. Where the test's source is
//!   found (a run from the workspace) proptest appends that line to
//!   `tests/<file>.proptest-regressions` itself; elsewhere (a bundle on a GPU machine) copy
//!   the printed line into that file. Committed, the line is replayed before the random cases
//!   by every later run, bundled binaries included: the file is compiled in.
// A failing case, a bad regression line or a missing device fails the test: by panicking.
#![allow(clippy::panic)]

use std::any::Any;
use std::fmt::Debug;
#[cfg(feature = "cuda")]
use std::sync::{Arc, Mutex, PoisonError};

#[cfg(feature = "cuda")]
use poly_cuda::{GpuDevice, GpuError};

use proptest::strategy::Strategy;
use proptest::test_runner::{
    Config, FailurePersistence, FileFailurePersistence, PersistedSeed, RngSeed, TestError, TestRunner,
};

/// The device every test of this binary shares, or `None` when this test is skipped (see the
/// module documentation). Opened under a lock, so that parallel tests create one context.
#[cfg(feature = "cuda")]
pub fn device() -> Option<Arc<GpuDevice>> {
    static DEVICE: Mutex<Option<Arc<GpuDevice>>> = Mutex::new(None);
    let mut slot = DEVICE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(device) = slot.as_ref() {
        return Some(Arc::clone(device));
    }
    match crate::open_device_or_skip(0) {
        Ok(Some(device)) => {
            *slot = Some(Arc::clone(&device));
            Some(device)
        }
        Ok(None) => None,
        Err(crate::DeviceError::Gpu(error @ (GpuError::DriverNotLoadable | GpuError::NoDevice { .. }))) => {
            panic!("GPU tests need the CUDA device ({} is set): {error}", crate::REQUIRE_GPU_ENV)
        }
        Err(error) => panic!("GPU tests need the CUDA device, which could not be opened: {error}"),
    }
}

/// Shrinking steps after a failure: each reruns a GPU case and its CPU reference.
const MAX_SHRINK_ITERS: u32 = 64;

/// A test file's committed regressions: `include_str!` of its `.proptest-regressions` file, and
/// `file!()` of the test source (where to add new ones).
#[derive(Debug, Clone, Copy)]
pub struct Regressions {
    /// The `.proptest-regressions` file's contents (`include_str!`).
    pub text: &'static str,
    /// The test source's path (`file!()`).
    pub source: &'static str,
}

impl Regressions {
    /// The seeds of the committed `cc <hex>` lines (comments and blank lines skipped).
    pub fn seeds(&self) -> Vec<PersistedSeed> {
        self.text
            .lines()
            .map(|line| line.split('#').next().unwrap_or("").trim())
            .filter(|line| !line.is_empty())
            .map(|line| line.parse().unwrap_or_else(|()| panic!("{}: bad regression line `{line}`", self.file())))
            .collect()
    }

    /// The regression file beside the test's source.
    pub fn file(&self) -> String {
        format!("{}.proptest-regressions", self.source.strip_suffix(".rs").unwrap_or(self.source))
    }
}

/// The generator seed for this run: `PROPTEST_RNG_SEED` when set, else random.
pub fn run_seed() -> u64 {
    match std::env::var("PROPTEST_RNG_SEED") {
        Ok(text) => text.trim().parse().unwrap_or_else(|_| panic!("PROPTEST_RNG_SEED={text} is not a u64")),
        Err(_) => rand::random(),
    }
}

/// The name of the running test (libtest names its thread after it).
pub fn test_name() -> String {
    std::thread::current().name().unwrap_or("gpu test").to_owned()
}

/// Runs `cases` random cases of `strategy` through `test` (which panics on a mismatch), after
/// the committed regressions; panics with the seed and the shrunk case on a failure.
pub fn check<S>(cases: u32, regressions: Regressions, strategy: S, test: impl Fn(S::Value))
where
    S: Strategy,
    S::Value: Debug,
{
    let name = test_name();
    let seed = run_seed();
    let cases = match std::env::var("PROPTEST_CASES") {
        Ok(text) => text.trim().parse().unwrap_or_else(|_| panic!("PROPTEST_CASES={text} is not a number")),
        Err(_) => cases,
    };
    let committed = regressions.seeds();
    eprintln!(
        "gpu cases: {name}: {cases} random cases + {} committed regressions, seed {seed} \
         (PROPTEST_RNG_SEED={seed} draws them again)",
        committed.len()
    );
    let config = Config {
        cases,
        rng_seed: RngSeed::Fixed(seed),
        failure_persistence: Some(Box::new(Committed { seeds: committed, file: regressions.file() })),
        source_file: Some(regressions.source),
        max_shrink_iters: MAX_SHRINK_ITERS,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let outcome = runner.run(&strategy, |value| {
        test(value);
        Ok(())
    });
    match outcome {
        Ok(()) => {}
        Err(TestError::Fail(reason, value)) => panic!(
            "{name}: a case failed (a committed regression, or a random case of seed {seed}: \
             PROPTEST_RNG_SEED={seed} draws the same cases; its `cc` line is printed above): {reason}\n\
             shrunk case: {value:#?}"
        ),
        Err(TestError::Abort(reason)) => panic!("{name}: proptest gave up (seed {seed}): {reason}"),
    }
}

/// Committed regressions replayed first; a new failure printed as the line to commit (and, run
/// from the workspace, appended to the file as proptest does).
#[derive(Debug, Clone, PartialEq)]
struct Committed {
    seeds: Vec<PersistedSeed>,
    file: String,
}

impl FailurePersistence for Committed {
    fn load_persisted_failures2(&self, _source_file: Option<&'static str>) -> Vec<PersistedSeed> {
        self.seeds.clone()
    }

    fn save_persisted_failure2(
        &mut self,
        source_file: Option<&'static str>,
        seed: PersistedSeed,
        shrunken_value: &dyn Debug,
    ) {
        let line = format!("{seed} # shrinks to {shrunken_value:?}").replace('\n', " ");
        eprintln!(
            "gpu cases: to replay this failure in every run, add this line to {} and commit it:\n{line}",
            self.file
        );
        FileFailurePersistence::WithSource("proptest-regressions").save_persisted_failure2(
            source_file,
            seed,
            shrunken_value,
        );
    }

    fn box_clone(&self) -> Box<dyn FailurePersistence> {
        Box::new(self.clone())
    }

    fn eq(&self, other: &dyn FailurePersistence) -> bool {
        other.as_any().downcast_ref::<Self>() == Some(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn committed_regressions_skip_comments_and_blank_lines() {
        let text =
            "# a comment\n\ncc 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef # shrinks to x\n";
        let regressions = Regressions { text, source: "crates/x/tests/gpu.rs" };
        assert_eq!(regressions.seeds().len(), 1);
        assert_eq!(regressions.file(), "crates/x/tests/gpu.proptest-regressions");
        assert!(Regressions { text: "# none\n", source: "t.rs" }.seeds().is_empty());
    }
}
