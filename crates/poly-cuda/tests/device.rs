//! The device check that `cargo xtask test-gpu` and `.gpu/run.sh` run before anything else,
//! with a device required: the device opens, reports itself, loads every kernel module, and a
//! device ordinal past the last is `NoSuchDevice`, not "no device". Without a device it skips
//! like every GPU test (and so fails where a device is required).
#![cfg(feature = "cuda")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use poly_cuda::kernel::LoadedModule;
use poly_cuda::{GpuDevice, GpuError};

#[test]
fn the_device_opens_and_reports_itself() {
    let Some(device) = common::device() else { return };
    let count = poly_cuda::device_count().unwrap();
    let (free, total) = device.memory_info().unwrap();
    let (major, minor) = device.cuda_context().compute_capability().unwrap();
    eprintln!(
        "CUDA device 0 of {count}: {}, compute capability {major}.{minor}, {} MiB free of {} MiB",
        device.name(),
        free >> 20,
        total >> 20
    );
    assert!(count >= 1, "a device opened but the driver counts {count}");
    assert!(free <= total && total > 0, "memory: {free} free of {total}");
    // Every embedded kernel module (of every GPU crate) loads on this device.
    for &module in poly_cuda::hegpu_kernels::MODULES {
        if let Err(error) = LoadedModule::load(device.cuda_context(), module, true) {
            panic!("kernel module {} does not load: {error}", module.name());
        }
    }
    assert!(!poly_cuda::hegpu_kernels::MODULES.is_empty());
    // Past the last ordinal: there are devices, so this is not a machine without one.
    assert_eq!(GpuDevice::new(count).unwrap_err(), GpuError::NoSuchDevice { ordinal: count, count });
}
