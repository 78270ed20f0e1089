//! Host-side trace of kernel and graph launches, for finding where an operation's device
//! time waits on the host. With `HEGPU_TRACE_LAUNCHES=1` in the environment (read once per
//! process), every launch through [`kernel::Launch`](crate::kernel::Launch), a clustered
//! launch and a graph launch append the kernel's name and the instant its launch call
//! returned to one process-wide log; [`take`] drains it. Unset, a launch pays one relaxed
//! load of a cached flag.

use std::sync::Mutex;
use std::sync::OnceLock;
use std::time::Instant;

/// The environment variable that turns the trace on (`1`).
pub const TRACE_ENV: &str = "HEGPU_TRACE_LAUNCHES";

/// One traced launch: the kernel's name (or `graph`) and when its launch call returned.
#[derive(Debug, Clone, Copy)]
pub struct TracedLaunch {
    /// The kernel's name, or `graph` for a graph launch.
    pub name: &'static str,
    /// When the launch call returned on the host.
    pub at: Instant,
}

static LOG: Mutex<Vec<TracedLaunch>> = Mutex::new(Vec::new());

/// Whether the trace is on (`HEGPU_TRACE_LAUNCHES=1`).
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var(TRACE_ENV).is_ok_and(|v| v == "1"))
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
