//! [`DevicePool`]: many independent operations in flight over every GPU of the machine.
//!
//! A pool holds *workers*: each is one [`GpuDevice`] handle (a stream of its own) with the
//! caller's state prepared on it (a scheme context and its keys, typically). Several workers
//! may share one physical device: their streams run concurrently, which fills a GPU that one
//! stream of small, launch-bound operations leaves idle. Each worker is driven by one host
//! thread, so every stream has its own issuing thread.
//!
//! - [`DevicePool::map`] spreads a batch of host-side items over the workers dynamically
//!   (whichever worker is free takes the next item) and returns the results in item order.
//! - [`DevicePool::for_each_worker`] runs one closure on every worker at once (for work that
//!   is already placed on the workers' devices, e.g. a benchmark's resident ciphertexts).
//!
//! Data on the device belongs to the worker that made it (its stream and context); moving an
//! object to another worker goes through the host (byte encodings, which also validate).
//! Results are the same whatever the worker: every kernel is deterministic, so a batch gives
//! the words a sequential run gives.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::{GpuDevice, GpuError, GpuTuning, device_count};

/// One worker of a [`DevicePool`]: a device handle with its own stream, and the caller's
/// state prepared on it.
#[derive(Debug)]
pub struct Worker<T> {
    device: Arc<GpuDevice>,
    ordinal: usize,
    index: usize,
    state: T,
}

impl<T> Worker<T> {
    /// The device handle (its stream is this worker's alone).
    pub fn device(&self) -> &Arc<GpuDevice> {
        &self.device
    }

    /// The CUDA ordinal of the physical device.
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// The worker's position in the pool.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The caller's state (a context and keys on this worker's device).
    pub fn state(&self) -> &T {
        &self.state
    }
}

/// Workers over one or more GPUs (module docs).
#[derive(Debug)]
pub struct DevicePool<T> {
    workers: Vec<Worker<T>>,
}

impl<T: Send + Sync> DevicePool<T> {
    /// `streams_per_device` workers on each of `ordinals`, the state of each made by `setup`
    /// from its device handle and its worker index (workers are numbered device by device).
    /// Errors with [`GpuError::Pool`] for no ordinal or no stream, with the device's
    /// error for an ordinal that cannot be opened, and with `setup`'s first error; no worker is
    /// kept then. The devices take the default [`GpuTuning`].
    pub fn new<E: From<GpuError>>(
        ordinals: &[usize],
        streams_per_device: usize,
        setup: impl Fn(&Arc<GpuDevice>, usize) -> Result<T, E>,
    ) -> Result<Self, E> {
        Self::with_tuning(ordinals, streams_per_device, &GpuTuning::default(), setup)
    }

    /// [`new`](Self::new) with every device opened with `tuning` ([`GpuDevice::with_tuning`]).
    pub fn with_tuning<E: From<GpuError>>(
        ordinals: &[usize],
        streams_per_device: usize,
        tuning: &GpuTuning,
        setup: impl Fn(&Arc<GpuDevice>, usize) -> Result<T, E>,
    ) -> Result<Self, E> {
        if ordinals.is_empty() || streams_per_device == 0 {
            return Err(GpuError::Pool {
                reason: format!(
                    "a device pool needs at least one device and one stream per device (got {} devices, {} streams)",
                    ordinals.len(),
                    streams_per_device
                ),
            }
            .into());
        }
        let mut workers = Vec::with_capacity(ordinals.len() * streams_per_device);
        for &ordinal in ordinals {
            for _ in 0..streams_per_device {
                let device = GpuDevice::with_tuning(ordinal, tuning.clone())?;
                let index = workers.len();
                let state = setup(&device, index)?;
                workers.push(Worker { device, ordinal, index, state });
            }
        }
        Ok(Self { workers })
    }

    /// [`new`](Self::new) over every device the driver reports.
    pub fn all_devices<E: From<GpuError>>(
        streams_per_device: usize,
        setup: impl Fn(&Arc<GpuDevice>, usize) -> Result<T, E>,
    ) -> Result<Self, E> {
        let ordinals: Vec<usize> = (0..device_count()?).collect();
        Self::new(&ordinals, streams_per_device, setup)
    }

    /// The workers, in index order.
    pub fn workers(&self) -> &[Worker<T>] {
        &self.workers
    }

    /// The number of distinct physical devices.
    pub fn device_count(&self) -> usize {
        let mut ordinals: Vec<usize> = self.workers.iter().map(|w| w.ordinal).collect();
        ordinals.sort_unstable();
        ordinals.dedup();
        ordinals.len()
    }

    /// Runs `f` on every worker at once (one host thread each) and returns the results in
    /// worker order, after each worker's stream has finished its work. The first error (in
    /// worker order) is returned; the other workers still run to their end.
    pub fn for_each_worker<O: Send, E: Send + From<GpuError>>(
        &self,
        f: impl Fn(&Worker<T>) -> Result<O, E> + Sync,
    ) -> Result<Vec<O>, E> {
        let f = &f;
        let results: Vec<Result<O, E>> = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .workers
                .iter()
                .map(|worker| {
                    scope.spawn(move || {
                        let out = f(worker)?;
                        worker.device.synchronize()?;
                        Ok(out)
                    })
                })
                .collect();
            handles.into_iter().map(join).collect()
        });
        results.into_iter().collect()
    }

    /// `f` over `items`, spread over the workers: each worker's thread takes the next
    /// unclaimed item until none is left, so a busy or slower device takes fewer. Returns the
    /// results in the order of `items`. On an error the workers stop taking new items and the
    /// first error (in item order) is returned.
    pub fn map<I: Send, O: Send, E: Send + From<GpuError>>(
        &self,
        items: Vec<I>,
        f: impl Fn(&Worker<T>, I) -> Result<O, E> + Sync,
    ) -> Result<Vec<O>, E> {
        let count = items.len();
        let slots: Vec<Mutex<Option<I>>> = items.into_iter().map(|item| Mutex::new(Some(item))).collect();
        let outputs: Vec<Mutex<Option<Result<O, E>>>> = (0..count).map(|_| Mutex::new(None)).collect();
        let next = AtomicUsize::new(0);
        let failed = std::sync::atomic::AtomicBool::new(false);
        let (slots, outputs, next, failed, f) = (&slots, &outputs, &next, &failed, &f);
        let finished: Vec<Result<(), E>> = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .workers
                .iter()
                .map(|worker| {
                    scope.spawn(move || -> Result<(), E> {
                        while !failed.load(Ordering::Relaxed) {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(slot) = slots.get(i) else { break };
                            let Some(item) = slot.lock().unwrap_or_else(PoisonError::into_inner).take() else {
                                continue;
                            };
                            let result = f(worker, item);
                            if result.is_err() {
                                failed.store(true, Ordering::Relaxed);
                            }
                            *outputs[i].lock().unwrap_or_else(PoisonError::into_inner) = Some(result);
                        }
                        worker.device.synchronize()?;
                        Ok(())
                    })
                })
                .collect();
            handles.into_iter().map(join).collect()
        });
        for result in finished {
            result?;
        }
        let mut results = Vec::with_capacity(count);
        for output in outputs.iter() {
            match output.lock().unwrap_or_else(PoisonError::into_inner).take() {
                Some(result) => results.push(result?),
                // Only items after an error are left unprocessed, and that error came first.
                None => {
                    return Err(GpuError::Pool {
                        reason: "a device pool item was not processed (an earlier item failed)".to_string(),
                    }
                    .into());
                }
            }
        }
        Ok(results)
    }
}

/// The result of a worker thread; a panic in the caller's closure is passed on.
fn join<R>(handle: std::thread::ScopedJoinHandle<'_, R>) -> R {
    match handle.join() {
        Ok(result) => result,
        Err(panic) => std::panic::resume_unwind(panic),
    }
}
