//! The CUDA kernels of hegpu, compiled at build time.
//!
//! With feature `cuda`, `build.rs` compiles every `*.cu` file of this crate on its own with
//! the flags in `nvcc.flags` (SASS sm_80 and sm_90, PTX compute_90; nvcc found as
//! `build_support.rs` says: `$NVCC`, `$CUDA_PATH`, `PATH`, `/usr/local/cuda`, then the
//! `cargo xtask setup-cuda` install), and this crate embeds each fatbin as one [`Module`]
//! constant named after its file: `ntt.cu` is [`NTT`], the CUDA module `"ntt"`. Without
//! `cuda` there is no module and nothing needs a CUDA toolkit.
//!
//! This crate only carries the compiled code; loading it into a CUDA context is the job of
//! the crate that launches it (`poly-cuda` loads `NTT`, `DGT`, `ELEMENTWISE`, `SAMPLING`,
//! `BLUESTEIN`, `PRIME_FACTOR`;
//! `rns` loads `RNS` and `KEYSWITCH`; `rlwe` loads `RLWE` and `PLAINTEXT`; `bgv-encrypt` loads `BGV`; `MODARITH_TEST` and `TIMING` serve
//! tests and benchmarks), each through `poly_cuda::kernel`.
#![no_std]
// Without `cuda` the module constants the docs link to do not exist.
#![cfg_attr(not(feature = "cuda"), allow(rustdoc::broken_intra_doc_links))]

/// One CUDA module: a `.cu` file of this crate compiled to a fatbin.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Module {
    name: &'static str,
    fatbin: &'static [u8],
}

impl Module {
    /// The module name: the file stem (`ntt.cu` -> `"ntt"`).
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// The fatbin image, as `cuModuleLoadData` takes it.
    pub const fn fatbin(&self) -> &'static [u8] {
        self.fatbin
    }
}

impl core::fmt::Debug for Module {
    // The image itself is hundreds of kilobytes: show its size.
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Module").field("name", &self.name).field("fatbin_bytes", &self.fatbin.len()).finish()
    }
}

#[cfg(feature = "cuda")]
include!(concat!(env!("OUT_DIR"), "/modules.rs"));

#[cfg(all(test, feature = "cuda"))]
mod tests {
    use super::*;

    /// Every module is a non-empty fatbin (magic `0xBA55ED50`, little-endian) under a
    /// distinct name, and the constants the GPU crates use exist.
    #[test]
    fn every_module_is_a_named_fatbin() {
        let used = [
            NTT,
            DGT,
            ELEMENTWISE,
            SAMPLING,
            BLUESTEIN,
            PRIME_FACTOR,
            RNS,
            KEYSWITCH,
            PLAINTEXT,
            RLWE,
            BGV,
            MODARITH_TEST,
            TIMING,
        ];
        for module in used {
            assert!(MODULES.contains(&module), "{module:?}");
        }
        for (i, module) in MODULES.iter().enumerate() {
            assert_eq!(module.fatbin().get(..4), Some(&[0x50, 0xed, 0x55, 0xba][..]), "{module:?}");
            assert!(MODULES[..i].iter().all(|m| m.name() != module.name()), "{module:?}");
        }
    }
}
