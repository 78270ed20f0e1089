//! Host-side trace of kernel and graph launches, for finding where an operation's device
//! time waits on the host. Once [`set_enabled`] turned it on (the benchmarks do where the
//! environment says so), every launch through [`kernel::Launch`](crate::kernel::Launch), a
//! clustered launch and a graph launch append the kernel's name and the instant its launch call
//! returned to one process-wide log; [`take`] drains it. Off (the default), a launch pays one
//! relaxed load of a flag.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// One traced launch: the kernel's name (or `graph`) and when its launch call returned.
#[derive(Debug, Clone, Copy)]
pub struct TracedLaunch {
    /// The kernel's name, or `graph` for a graph launch.
    pub name: &'static str,
    /// When the launch call returned on the host.
    pub at: Instant,
}

static LOG: Mutex<Vec<TracedLaunch>> = Mutex::new(Vec::new());
/// Whether launches are traced (process-wide, as the log is).
static ON: AtomicBool = AtomicBool::new(false);

/// Turns the trace on or off for every launch of this process from now on.
pub fn set_enabled(on: bool) {
    ON.store(on, Ordering::Relaxed);
}

/// Whether the trace is on ([`set_enabled`]).
pub fn enabled() -> bool {
    ON.load(Ordering::Relaxed)
}

/// Appends `name` at the current instant, where the trace is on.
pub(crate) fn record(name: &'static str) {
    if enabled() {
        let at = Instant::now();
        // A poisoned log only loses trace entries, never a launch.
        if let Ok(mut log) = LOG.lock() {
            log.push(TracedLaunch { name, at });
        }
    }
}

/// Drains the log: every launch traced since the last call, in launch order (empty when the
/// trace is off).
pub fn take() -> Vec<TracedLaunch> {
    LOG.lock().map(|mut log| std::mem::take(&mut *log)).unwrap_or_default()
}
