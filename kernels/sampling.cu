// Deterministic sampling kernels, bit-exact with crates/poly/src/sampling.rs. Specification:
// docs/sampling.md. Every thread computes one ChaCha20 block of the stream (grid-stride loop).
//
// Common arguments:
//   key        Seed::key_words(), by value
//   stream_id  Distribution::stream_id(poly_index) = tag << 56 | poly_index, computed by the host
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

// Writes the 8 signed values of coefficients 8b .. 8b + 7 into every limb.
__device__ __forceinline__ void sampling_store_small(uint64_t* __restrict__ out,
                                                     const modarith::Modulus* __restrict__ moduli,
                                                     uint32_t limb_count, uint32_t log_degree, uint64_t b,
                                                     const int64_t values[8]) {
    for (uint32_t limb = 0; limb < limb_count; ++limb) {
        const uint64_t p = moduli[limb].p;
        ulonglong2* target = reinterpret_cast<ulonglong2*>(out + ((uint64_t)limb << log_degree) + 8 * b);
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            target[k] = make_ulonglong2(sampling_small_signed_mod(values[2 * k], p),
                                        sampling_small_signed_mod(values[2 * k + 1], p));
        }
    }
}

// Ternary: coefficient j = (u64 keystream word j) mod 3 - 1, in every limb. Threads: N / 8.
extern "C" __global__ void sample_ternary_kernel(uint64_t* __restrict__ out,
                                                 const modarith::Modulus* __restrict__ moduli, uint32_t limb_count,
                                                 uint32_t log_degree, ChaChaKey key, uint64_t stream_id) {
    const uint64_t block_count = ((uint64_t)1 << log_degree) / 8;
    for (uint64_t b = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; b < block_count;
         b += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t words[CHACHA20_BLOCK_WORDS];
        chacha20_block(key, stream_id, b, words);
        int64_t values[8];
#pragma unroll
        for (int k = 0; k < 8; ++k) values[k] = (int64_t)(chacha20_u64(words, k) % 3) - 1;
        sampling_store_small(out, moduli, limb_count, log_degree, b, values);
    }
}

// Centered binomial, eta = 21: coefficient j = popcount(u & (2^21 - 1)) - popcount((u >> 21) &
// (2^21 - 1)) for u = u64 keystream word j, in every limb. Threads: N / 8.
extern "C" __global__ void sample_cbd_kernel(uint64_t* __restrict__ out,
                                             const modarith::Modulus* __restrict__ moduli, uint32_t limb_count,
                                             uint32_t log_degree, ChaChaKey key, uint64_t stream_id) {
    const uint64_t mask = (1ull << 21) - 1;
    const uint64_t block_count = ((uint64_t)1 << log_degree) / 8;
    for (uint64_t b = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; b < block_count;
         b += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t words[CHACHA20_BLOCK_WORDS];
        chacha20_block(key, stream_id, b, words);
        int64_t values[8];
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            const uint64_t u = chacha20_u64(words, k);
            values[k] = (int64_t)__popcll(u & mask) - (int64_t)__popcll((u >> 21) & mask);
        }
        sampling_store_small(out, moduli, limb_count, log_degree, b, values);
    }
}
