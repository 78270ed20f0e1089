//! The host's cost of the primitives every GPU call is made of: where small-`N` operations,
//! which the host's issue rate bounds (`bgv_bench --host`), spend their time.
//!
//! Each primitive runs `--runs` times back to back (default 2000) behind a busy kernel, so the
//! device never holds the host back within the first launches; the table gives the host's
//! microseconds per call (wall time over the loop / runs). Rows: an empty kernel launched
//! through cudarc's builder, a stream-ordered allocation with its free, an upload of 32 words
//! from pageable memory, an event record, a kernel-set lookup, a CUDA graph of eleven empty
//! kernels, and a forward and inverse NTT of 2^12 x 3 limbs (out of place: an allocation and
//! two launches). Two `device-*` rows give the device's time per empty kernel instead (events
//! around 200 launches behind the busy kernel, alone and as graphs of eleven).
//!
//! `gpu_host_costs [--runs N]`; prints `host <primitive> <min> <median>` (microseconds per call
//! over seven loops).

use std::sync::Arc;
use std::time::Instant;

use poly::{Coeff, RingContext, TransformKind};
use poly_cuda::cudarc::driver::sys::{CUevent_flags, CUgraphInstantiate_flags, CUstreamCaptureMode};
use poly_cuda::cudarc::driver::{LaunchConfig, PushKernelArg};
use poly_cuda::{DevicePoly, GpuContext, GpuDevice};

type BoxResult<T> = Result<T, Box<dyn std::error::Error>>;

/// Loops of `op` per row; the row reports the smallest and the median.
const REPEATS: usize = 7;

/// Microseconds per call of `op` (min and median over [`REPEATS`] loops of `runs` calls back
/// to back, each after a device busy spin).
fn per_call(device: &GpuDevice, runs: usize, mut op: impl FnMut() -> BoxResult<()>) -> BoxResult<(f64, f64)> {
    let mut loops = Vec::with_capacity(REPEATS);
    for _ in 0..REPEATS {
        device.synchronize()?;
        spin(device, 20)?;
        let start = Instant::now();
        for _ in 0..runs {
            op()?;
        }
        loops.push(start.elapsed().as_secs_f64() * 1e6 / runs as f64);
        device.synchronize()?;
    }
    loops.sort_by(f64::total_cmp);
    Ok((loops[0], loops[REPEATS / 2]))
}

/// Keeps the device busy for `ms` milliseconds.
fn spin(device: &GpuDevice, ms: u64) -> BoxResult<()> {
    launch_spin(device, ms * 1_000_000)
}

fn launch_spin(device: &GpuDevice, nanoseconds: u64) -> BoxResult<()> {
    let kernels = device.kernel_set::<poly_cuda::kernel::TimingKernels>()?;
    let mut launch = device.stream().launch_builder(kernels.spin_wait.function());
    launch.arg(&nanoseconds);
    // SAFETY: `spin_wait(unsigned long long)` takes one 64-bit argument, pushed above; one
    // thread, no shared memory, no memory accessed.
    unsafe { launch.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (1, 1, 1), shared_mem_bytes: 0 }) }?;
    Ok(())
}

fn main() -> BoxResult<()> {
    let mut runs = 2000usize;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--runs" => runs = args.next().ok_or("--runs needs a number")?.parse()?,
            other => return Err(format!("unknown argument {other}").into()),
        }
    }
    let device = benches::tuning::open_device(0)?;
    let stream = Arc::clone(device.stream());
    println!("# gpu_host_costs: GPU {}; host microseconds per call, {runs} calls back to back", device.name());
    let mut rows: Vec<(&str, (f64, f64))> = Vec::new();
    // A launch queue holds about a thousand kernels: keep the launch loops below that.
    let launches = runs.min(500);
    rows.push(("launch-empty-kernel", per_call(&device, launches, || launch_spin(&device, 0))?));
    rows.push((
        "alloc-free-12288-words",
        per_call(&device, runs, || {
            // SAFETY: never read; freed at once.
            let buffer = unsafe { stream.alloc::<u64>(12288) }?;
            drop(buffer);
            Ok(())
        })?,
    ));
    let mut held = Vec::with_capacity(runs);
    rows.push((
        "alloc-12288-words-kept",
        per_call(&device, runs, || {
            // SAFETY: never read; freed after the loop.
            held.push(unsafe { stream.alloc::<u64>(12288) }?);
            Ok(())
        })?,
    ));
    held.clear();
    let words = [7u64; 32];
    rows.push((
        "upload-32-words-pageable",
        per_call(&device, launches, || {
            let buffer = stream.clone_htod(&words)?;
            drop(buffer);
            Ok(())
        })?,
    ));
    rows.push((
        "record-event",
        per_call(&device, runs, || {
            let _event = stream.record_event(None)?;
            Ok(())
        })?,
    ));
    rows.push((
        "kernel-set-lookup",
        per_call(&device, runs, || {
            let _set = device.kernel_set::<poly_cuda::kernel::TimingKernels>()?;
            Ok(())
        })?,
    ));
    // Eleven empty kernels (a BGV key switch at N = 2^12 is eleven launches) captured into a
    // graph on the device's stream, launched as one.
    stream.begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)?;
    let queued: BoxResult<()> = (0..11).try_for_each(|_| launch_spin(&device, 0));
    let graph = stream.end_capture(CUgraphInstantiate_flags(0));
    queued?;
    let graph = graph?.ok_or("no graph captured")?;
    graph.upload()?;
    rows.push(("graph-of-11-empty-kernels", per_call(&device, launches / 11, || Ok(graph.launch()?))?));
    // Device time per empty kernel, back to back behind a busy spin (events around 200
    // launches, and around 18 launches of the graph of eleven): the device's own floor per
    // kernel, which small-N operations pay whatever the host does.
    let device_floor = |launch_all: &dyn Fn() -> BoxResult<()>, kernels: f64| -> BoxResult<(f64, f64)> {
        let mut loops = Vec::with_capacity(REPEATS);
        for _ in 0..REPEATS {
            device.synchronize()?;
            spin(&device, 20)?;
            let timing = Some(CUevent_flags::CU_EVENT_DEFAULT);
            let start = stream.record_event(timing)?;
            launch_all()?;
            let end = stream.record_event(timing)?;
            end.synchronize()?;
            loops.push(f64::from(start.elapsed_ms(&end)?) * 1e3 / kernels);
        }
        loops.sort_by(f64::total_cmp);
        Ok((loops[0], loops[REPEATS / 2]))
    };
    rows.push((
        "device-per-empty-kernel",
        device_floor(&|| (0..200).try_for_each(|_| launch_spin(&device, 0)), 200.0)?,
    ));
    rows.push((
        "device-per-empty-kernel-in-graph",
        device_floor(&|| (0..18).try_for_each(|_| Ok(graph.launch()?)), 18.0 * 11.0)?,
    ));
    let n = 4096;
    let primes = modarith::generate_ntt_primes(60, 2 * n as u64, 3, &[])?;
    let ring: Arc<RingContext> = RingContext::new(n, &primes, TransformKind::Ntt)?;
    let gpu = GpuContext::new(&device, &ring)?;
    let poly = DevicePoly::<Coeff>::zero(&gpu)?;
    let ntt_runs = runs.min(200);
    rows.push((
        "ntt-forward-to-new-4096x3",
        per_call(&device, ntt_runs, || {
            let _out = poly.forward_to_new()?;
            Ok(())
        })?,
    ));
    let mut in_place = Some(poly.forward_to_new()?);
    rows.push((
        "ntt-inverse-then-forward-in-place-4096x3",
        per_call(&device, ntt_runs, || {
            let eval = in_place.take().ok_or("no polynomial")?;
            in_place = Some(eval.inverse()?.forward()?);
            Ok(())
        })?,
    ));
    println!("# primitive min_us median_us");
    for (name, (min, median)) in rows {
        println!("host {name} {min:.2} {median:.2}");
    }
    Ok(())
}
