// Deterministic sampling kernels, bit-exact with crates/poly/src/sampling.rs. Specification:
// docs/sampling.md. Every thread computes one ChaCha20 block of the stream: a grid-stride loop
// for the uniform kernel; the ternary and binomial kernels spread the limbs over the grid too.
//
// Common arguments:
//   key        Seed::key_words(), by value
//   stream_id  Distribution::stream_id(poly_index) = tag << 56 | poly_index, computed by the host
//   limbs_per_group  (ternary, binomial) limbs written by one row of the grid (blockIdx.y)
//   out        limb-major [limb_count][N] u64, N = 1 << log_degree, N >= 8; 16-byte aligned
//              (the kernels store pairs of u64; device allocations are 256-byte aligned and
//              limb offsets are multiples of 64 bytes)
//   moduli     limb_count entries {q_i, floor(2^128 / q_i) high, low} (modarith::Modulus, the
//              values of Modulus::value() and Modulus::barrett_constant()), q_i prime < 2^62
#include <stdint.h>

#include "chacha20.cuh"
#include "modarith.cuh"

// The canonical residue of a small signed value (|v| <= 21) modulo p, as Modulus::from_i64.
__device__ __forceinline__ uint64_t sampling_small_signed_mod(int64_t v, uint64_t p) {
    uint64_t magnitude = (uint64_t)(v < 0 ? -v : v);
    if (magnitude >= p) magnitude %= p;  // only for primes below 22; never taken in practice
    return (v < 0 && magnitude != 0) ? p - magnitude : magnitude;
}

// Keystream blocks first_block .. first_block + block_count of stream_id, 16 u32 words each, to
// out[16 * (block - first_block) ..]. For testing the device block function against the CPU.
extern "C" __global__ void chacha20_keystream_kernel(uint32_t* __restrict__ out, ChaChaKey key,
                                                     uint64_t stream_id, uint64_t first_block,
                                                     uint64_t block_count) {
    for (uint64_t b = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; b < block_count;
         b += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t words[CHACHA20_BLOCK_WORDS];
        chacha20_block(key, stream_id, first_block + b, words);
#pragma unroll
        for (int k = 0; k < CHACHA20_BLOCK_WORDS; ++k) out[CHACHA20_BLOCK_WORDS * b + k] = words[k];
    }
}

// Uniform mod q_i: flat coefficient c = i * N + j uses keystream words 4c .. 4c + 3 as a
// little-endian 128-bit integer, reduced mod q_i. Block b holds coefficients 4b .. 4b + 3, all in
// limb (4b) >> log_degree. Threads: limb_count * N / 4.
extern "C" __global__ void sample_uniform_kernel(uint64_t* __restrict__ out,
                                                 const modarith::Modulus* __restrict__ moduli, uint32_t limb_count,
                                                 uint32_t log_degree, ChaChaKey key, uint64_t stream_id) {
    const uint64_t block_count = ((uint64_t)limb_count << log_degree) / 4;
    for (uint64_t b = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; b < block_count;
         b += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t words[CHACHA20_BLOCK_WORDS];
        chacha20_block(key, stream_id, b, words);
        const uint64_t limb = (4 * b) >> log_degree;
        const modarith::Modulus modulus = moduli[limb];
        uint64_t values[4];
        // Modulus::reduce_u128 of (high u64 word 2k+1, low u64 word 2k): exact remainder.
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            values[k] = modarith::reduce_u128(chacha20_u64(words, 2 * k), chacha20_u64(words, 2 * k + 1), modulus);
        }
        ulonglong2* target = reinterpret_cast<ulonglong2*>(out + 4 * b);
        target[0] = make_ulonglong2(values[0], values[1]);
        target[1] = make_ulonglong2(values[2], values[3]);
    }
}

// Threads per block of the ternary and binomial kernels (the host launches with this many).
#define SMALL_SAMPLING_THREADS 128

// Ternary and binomial sampling, one body. Grid: x covers the ChaCha blocks (block b holds
// coefficients 8b .. 8b + 7; SMALL_SAMPLING_THREADS per CUDA block), y the groups of
// `limbs_per_group` consecutive limbs. Each thread computes its ChaCha block once per group (the
// blocks of a group are recomputed by the other groups: a ChaCha block is cheaper than the
// serial stores of every limb, which left most SMs idle with one group), keeps its 8 signed
// values in shared memory, and the CUDA block then writes its run of 8 * SMALL_SAMPLING_THREADS
// coefficients into each limb of the group in coalesced pairs.
template <class Value>
__device__ __forceinline__ void sample_small_body(uint64_t* __restrict__ out,
                                                  const modarith::Modulus* __restrict__ moduli,
                                                  uint32_t limb_count, uint32_t log_degree, ChaChaKey key,
                                                  uint64_t stream_id, uint32_t limbs_per_group, Value value_of) {
    __shared__ int8_t values[8 * SMALL_SAMPLING_THREADS];
    const uint64_t n = (uint64_t)1 << log_degree;
    const uint64_t first_block = (uint64_t)blockIdx.x * SMALL_SAMPLING_THREADS;
    const uint64_t b = first_block + threadIdx.x;
    if (b < n / 8) {
        uint32_t words[CHACHA20_BLOCK_WORDS];
        chacha20_block(key, stream_id, b, words);
#pragma unroll
        for (int k = 0; k < 8; ++k) values[8 * threadIdx.x + k] = (int8_t)value_of(chacha20_u64(words, k));
    }
    __syncthreads();
    const uint64_t first = 8 * first_block;
    const uint32_t count = (uint32_t)min((uint64_t)8 * SMALL_SAMPLING_THREADS, n - first);
    const uint32_t first_limb = blockIdx.y * limbs_per_group;
    const uint32_t end_limb = min(limb_count, first_limb + limbs_per_group);
    for (uint32_t limb = first_limb; limb < end_limb; ++limb) {
        const uint64_t p = moduli[limb].p;
        ulonglong2* target = reinterpret_cast<ulonglong2*>(out + ((uint64_t)limb << log_degree) + first);
        for (uint32_t i = threadIdx.x; 2 * i < count; i += SMALL_SAMPLING_THREADS) {
            target[i] = make_ulonglong2(sampling_small_signed_mod(values[2 * i], p),
                                        sampling_small_signed_mod(values[2 * i + 1], p));
        }
    }
}

// Ternary: coefficient j = (u64 keystream word j) mod 3 - 1, in every limb.
extern "C" __global__ void __launch_bounds__(SMALL_SAMPLING_THREADS)
    sample_ternary_kernel(uint64_t* __restrict__ out, const modarith::Modulus* __restrict__ moduli,
                          uint32_t limb_count, uint32_t log_degree, ChaChaKey key, uint64_t stream_id,
                          uint32_t limbs_per_group) {
    sample_small_body(out, moduli, limb_count, log_degree, key, stream_id, limbs_per_group,
                      [](const uint64_t u) { return (int)(u % 3) - 1; });
}

// Centered binomial, eta = 21: coefficient j = popcount(u & (2^21 - 1)) - popcount((u >> 21) &
// (2^21 - 1)) for u = u64 keystream word j, in every limb.
extern "C" __global__ void __launch_bounds__(SMALL_SAMPLING_THREADS)
    sample_cbd_kernel(uint64_t* __restrict__ out, const modarith::Modulus* __restrict__ moduli,
                      uint32_t limb_count, uint32_t log_degree, ChaChaKey key, uint64_t stream_id,
                      uint32_t limbs_per_group) {
    sample_small_body(out, moduli, limb_count, log_degree, key, stream_id, limbs_per_group, [](const uint64_t u) {
        const uint64_t mask = (1ull << 21) - 1;
        return __popcll(u & mask) - __popcll((u >> 21) & mask);
    });
}
