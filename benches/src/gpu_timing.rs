//! CUDA-event timing shared by the GPU benchmark binaries (`src/bin/gpu_*.rs`).
//!
//! Two ways to time a call: [`EventTimer::primed`] queues the timed calls behind a kernel
//! that keeps the GPU busy for a few milliseconds ([`EventTimer::prime`], `kernels/timing.cu`),
//! so the events see device time only; [`EventTimer::new`] times each call as it comes, host
//! launch latency included.

use std::sync::Arc;

use poly_cuda::cudarc::driver::sys::CUevent_flags;
use poly_cuda::cudarc::driver::{CudaEvent, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use poly_cuda::{GpuDevice, GpuError};

/// Pairs of CUDA events around timed calls on one stream.
#[derive(Debug)]
pub struct EventTimer {
    stream: Arc<CudaStream>,
    pairs: Vec<(CudaEvent, CudaEvent)>,
    spin: Option<CudaFunction>,
}

impl EventTimer {
    /// Times calls as they come (host launch latency included).
    pub fn new(stream: &Arc<CudaStream>) -> Self {
        Self { stream: Arc::clone(stream), pairs: Vec::new(), spin: None }
    }

    /// Times calls queued behind [`prime`](Self::prime)'s busy kernel (device time only).
    pub fn primed(device: &GpuDevice) -> Result<Self, GpuError> {
        let spin = device.kernel_set::<poly_cuda::kernel::TimingKernels>()?.spin_wait.function().clone();
        Ok(Self { stream: Arc::clone(device.stream()), pairs: Vec::new(), spin: Some(spin) })
    }

    /// Keeps the GPU busy for `ms` milliseconds so that the calls queued next start back to
    /// back; does nothing for a timer made by [`new`](Self::new).
    pub fn prime(&self, ms: u64) -> Result<(), DriverError> {
        if let Some(spin) = &self.spin {
            let nanoseconds = ms * 1_000_000;
            let mut launch = self.stream.launch_builder(spin);
            launch.arg(&nanoseconds);
            // SAFETY: `spin_wait(unsigned long long)` takes one 64-bit argument, pushed above;
            // one thread, no shared memory, no memory accessed.
            unsafe { launch.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1, 1, 1), shared_mem_bytes: 0 }) }?;
        }
        Ok(())
    }

    /// Queues `op` between two timing events (no host synchronization: calls run back to back).
    pub fn time<T>(&mut self, op: impl FnOnce() -> T) -> Result<T, DriverError> {
        let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
        let start = self.stream.record_event(flags)?;
        let out = op();
        let end = self.stream.record_event(flags)?;
        self.pairs.push((start, end));
        Ok(out)
    }

    /// Microseconds of every timed call, sorted.
    pub fn finish(self) -> Result<Vec<f64>, DriverError> {
        self.stream.synchronize()?;
        let mut us = Vec::with_capacity(self.pairs.len());
        for (start, end) in &self.pairs {
            us.push(f64::from(start.elapsed_ms(end)?) * 1e3);
        }
        us.sort_by(f64::total_cmp);
        Ok(us)
    }
}

/// The median of sorted samples (NaN for none).
pub fn median(sorted: &[f64]) -> f64 {
    sorted.get(sorted.len() / 2).copied().unwrap_or(f64::NAN)
}

/// Device-to-device copy bandwidth in GB/s (bytes read + written), median of 30 copies of
/// 512 MiB after 3 warm-up copies: the reference every benchmark reports a fraction of.
pub fn copy_bandwidth(device: &GpuDevice) -> Result<f64, DriverError> {
    let stream = device.stream();
    let words = 64usize << 20;
    let src = stream.clone_htod(&vec![0x5555_5555_5555_5555u64; words])?;
    let mut dst = stream.alloc_zeros::<u64>(words)?;
    for _ in 0..3 {
        stream.memcpy_dtod(&src, &mut dst)?;
    }
    let mut timer = EventTimer::new(stream);
    for _ in 0..30 {
        timer.time(|| stream.memcpy_dtod(&src, &mut dst))??;
    }
    let us = median(&timer.finish()?);
    Ok((2 * words * 8) as f64 / (us * 1e-6) / 1e9)
}
