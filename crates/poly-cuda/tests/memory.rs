//! Device memory policy (`GpuDevice::new`): freed buffers stay in the stream-ordered pool,
//! `trim_memory_pool` returns them to the driver, and allocations work after a trim. One test
//! in its own binary, so no other test allocates while it reads the free memory.
#![cfg(feature = "cuda")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use common::{device, ring};
use poly::{Coeff, TransformKind};
use poly_cuda::{DevicePoly, GpuContext};

#[test]
fn freed_memory_stays_pooled_until_trimmed() {
    let Some(device) = device() else { return };
    // 2^16 x 64 limbs: 32 MiB a polynomial, 256 MiB for eight.
    let ring = ring(16, 64, 60, TransformKind::Ntt);
    let context = GpuContext::new(&device, &ring).unwrap();
    let polys: Vec<DevicePoly<Coeff>> = (0..8).map(|_| DevicePoly::zero(&context).unwrap()).collect();
    device.synchronize().unwrap();
    let (free_in_use, _) = device.memory_info().unwrap();
    drop(polys);
    device.synchronize().unwrap();
    let (free_pooled, _) = device.memory_info().unwrap();
    device.trim_memory_pool(0).unwrap();
    let (free_trimmed, _) = device.memory_info().unwrap();
    const MIB: usize = 1 << 20;
    // Kept in the pool across the synchronize (the driver's default would have released it)...
    assert!(free_pooled < free_in_use + 64 * MIB, "freed memory left the pool: {free_in_use} -> {free_pooled}");
    // ...and given back by the trim.
    assert!(free_trimmed >= free_pooled + 192 * MIB, "trim returned too little: {free_pooled} -> {free_trimmed}");
    // Allocations still work and compute after a trim.
    let values: Vec<u64> = (0..ring.poly_len() as u64).map(|i| i % 1000).collect();
    let poly = DevicePoly::<Coeff>::from_limbs(&context, &values).unwrap();
    assert_eq!(poly.to_vec().unwrap(), values);
}
