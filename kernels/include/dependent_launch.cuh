// Programmatic dependent launch (sm_90): a kernel joined to the one before it by a programmatic
// dependency may start while its predecessor is still running, and must wait for it before
// touching anything the predecessor writes or reads. The dependency comes from a graph edge of
// that type (crates/poly-cuda/src/graph.rs) or from the launch attribute that
// crates/poly-cuda/src/kernel.rs sets for the kernels it lists as waiting (PROGRAMMATIC_KERNELS:
// the transforms, RNS, BGV-decryption and most element-wise kernels). Before the wait such a kernel
// may only read constant tables (twiddles, moduli) and use its shared memory. Both calls are
// no-ops for a kernel launched the ordinary way, and below sm_90 (where no such dependency can
// exist).
#pragma once

namespace dependent_launch {

// Waits until every grid this one depends on programmatically has completed, with its writes
// visible. Kernels call it before their first read of another kernel's output.
__device__ __forceinline__ void wait_for_inputs() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Lets the grids that depend on this one programmatically begin to launch (their blocks then
// wait in wait_for_inputs until this grid has completed).
__device__ __forceinline__ void allow_dependents() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// Both, in that order: the start of a kernel that has nothing to do before it reads its inputs.
__device__ __forceinline__ void wait_for_inputs_and_allow_dependents() {
    wait_for_inputs();
    allow_dependents();
}

}  // namespace dependent_launch
