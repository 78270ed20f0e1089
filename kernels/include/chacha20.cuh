// ChaCha20 block function on the device, in the layout of rand_chacha::ChaCha20Rng 0.3 (djb's
// 64-bit block counter and 64-bit stream id). Spec: docs/sampling.md; CPU reference:
// crates/poly/src/sampling.rs (`chacha20_block`).
//
// Input state of block `counter` of stream `stream_id`:
//   words  0..4   "expand 32-byte k" constants
//   words  4..12  key (the 32-byte seed as eight little-endian u32 words)
//   words 12, 13  counter low, high
//   words 14, 15  stream id low, high
// Output: the state after 20 rounds (RFC 8439 section 2.3) plus the input state, word by word:
// keystream words 16 * counter .. 16 * counter + 15 of the stream.
#pragma once

#include <stdint.h>

// Passed to kernels by value; the Rust side passes `[u32; 8]` (Seed::key_words()).
struct ChaChaKey {
    uint32_t words[8];
};

#define CHACHA20_BLOCK_WORDS 16

__device__ __forceinline__ uint32_t chacha20_rotl(uint32_t x, uint32_t n) {
    return __funnelshift_l(x, x, n);
}

__device__ __forceinline__ void chacha20_quarter_round(uint32_t& a, uint32_t& b, uint32_t& c, uint32_t& d) {
    a += b; d ^= a; d = chacha20_rotl(d, 16);
    c += d; b ^= c; b = chacha20_rotl(b, 12);
    a += b; d ^= a; d = chacha20_rotl(d, 8);
    c += d; b ^= c; b = chacha20_rotl(b, 7);
}

// Writes the 16 keystream words of block `counter` of stream `stream_id` to `out`.
// Written with named scalars and full unrolling so the state stays in registers.
__device__ __forceinline__ void chacha20_block(const ChaChaKey& key, uint64_t stream_id, uint64_t counter,
                                               uint32_t out[CHACHA20_BLOCK_WORDS]) {
    const uint32_t in0 = 0x61707865u, in1 = 0x3320646eu, in2 = 0x79622d32u, in3 = 0x6b206574u;
    const uint32_t in12 = (uint32_t)counter, in13 = (uint32_t)(counter >> 32);
    const uint32_t in14 = (uint32_t)stream_id, in15 = (uint32_t)(stream_id >> 32);
    uint32_t x0 = in0, x1 = in1, x2 = in2, x3 = in3;
    uint32_t x4 = key.words[0], x5 = key.words[1], x6 = key.words[2], x7 = key.words[3];
    uint32_t x8 = key.words[4], x9 = key.words[5], x10 = key.words[6], x11 = key.words[7];
    uint32_t x12 = in12, x13 = in13, x14 = in14, x15 = in15;
#pragma unroll
    for (int double_round = 0; double_round < 10; ++double_round) {
        chacha20_quarter_round(x0, x4, x8, x12);
        chacha20_quarter_round(x1, x5, x9, x13);
        chacha20_quarter_round(x2, x6, x10, x14);
        chacha20_quarter_round(x3, x7, x11, x15);
        chacha20_quarter_round(x0, x5, x10, x15);
        chacha20_quarter_round(x1, x6, x11, x12);
        chacha20_quarter_round(x2, x7, x8, x13);
        chacha20_quarter_round(x3, x4, x9, x14);
    }
    out[0] = x0 + in0;
    out[1] = x1 + in1;
    out[2] = x2 + in2;
    out[3] = x3 + in3;
    out[4] = x4 + key.words[0];
    out[5] = x5 + key.words[1];
    out[6] = x6 + key.words[2];
    out[7] = x7 + key.words[3];
    out[8] = x8 + key.words[4];
    out[9] = x9 + key.words[5];
    out[10] = x10 + key.words[6];
    out[11] = x11 + key.words[7];
    out[12] = x12 + in12;
    out[13] = x13 + in13;
    out[14] = x14 + in14;
    out[15] = x15 + in15;
}

// u64 word k of a block (0 <= k < 8): word[2k] | word[2k+1] << 32, as rand_chacha's next_u64.
__device__ __forceinline__ uint64_t chacha20_u64(const uint32_t block[CHACHA20_BLOCK_WORDS], int k) {
    return (uint64_t)block[2 * k] | ((uint64_t)block[2 * k + 1] << 32);
}
