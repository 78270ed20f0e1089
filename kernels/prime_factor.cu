// The prime-factor (Good-Thomas) DFT of the rings Z_p[x]/Phi_m(x) on the GPU
// (crates/poly-cuda/src/prime_factor.rs, GpuPrimeFactor), bit-exact with the CPU reference
// (crates/poly/src/prime_factor.rs: PrimeFactorPlan) and so with Bluestein's transform.
//
// Data flow. m = m_0 ... m_(r-1), pairwise coprime prime powers; a limb's tensor is row-major,
// axis 0 slowest; buffers are [rows][tensor], rows = count * L (limb = row % L).
//
//   forward (coefficients -> evaluations at the phi(m) primitive roots, increasing index):
//     [pf_gather_input (tensor position t <- coefficient sources[t], scaled, message added)]
//     -> per axis: pf_direct_axis (DFT matrix, phi(m_i) of m_i outputs) or pf_rader_axis
//        (Rader's convolution for a prime m_i with m_i - 1 = 2^s); two neighbouring direct
//        axes as one pass, pf_direct_pair
//     -> [pf_gather (evaluation s <- output tensor position positions[s], zeros to the stride)]
//   inverse (evaluations -> the interpolant of degree < m, zero at the other roots):
//     [pf_scatter (output tensor position positions[s] <- evaluation s)]
//     -> per axis: pf_direct_axis (inverse matrix) or pf_rader_axis (inverse)
//     -> [pf_scatter (coefficient sources[t] <- tensor position t)], then Bluestein's module
//        reduces it modulo Phi_m.
//   The bracketed passes are folded into the first axis (pf_direct_axis's in_map) and the last
//   (pf_rader_axis's out_map) when the axes are of those kinds (a direct axis first, a Rader
//   axis last, as for m = 5 * 17 * 257) and the input carries no scale or message.
//
// `moduli`: L triples {p, floor(2^128 / p) hi, lo} (modarith::Modulus). Per-limb tables are
// concatenated limb after limb.
#include <cstdint>

#include "modarith.cuh"

using modarith::Modulus;
using modarith::u64;

#define GRID_STRIDE(idx, total) \
    for (u64 idx = (u64)blockIdx.x * blockDim.x + threadIdx.x; idx < (total); idx += (u64)gridDim.x * blockDim.x)

// out[row][t] = j < n ? scale * x[row][j] + lift(msg[j]) : 0 with j = sources[t], t < m. `x`:
// rows of in_stride words; `msg` (may be null): n values in [0, t_plain), lifted to the centered
// residue; `scale` below every prime (1: just x).
extern "C" __global__ void pf_gather_input(u64* __restrict__ out, const u64* __restrict__ x,
                                           const u64* __restrict__ msg, const unsigned* __restrict__ sources,
                                           const Modulus* __restrict__ moduli, u64 scale, u64 t_plain, u64 n,
                                           u64 in_stride, u64 m, u64 limbs, u64 rows) {
    GRID_STRIDE(idx, rows * m) {
        const u64 t = idx % m;
        const u64 row = idx / m;
        const u64 j = sources[t];
        u64 v = 0;
        if (j < n) {
            const Modulus mi = moduli[row % limbs];
            v = x[row * in_stride + j];
            if (scale != 1) v = modarith::mul(v, scale, mi);
            if (msg != nullptr) {
                const u64 w = msg[j];
                const u64 lifted = w > (t_plain >> 1)
                                       ? modarith::sub(modarith::reduce(w, mi), modarith::reduce(t_plain, mi), mi.p)
                                       : modarith::reduce(w, mi);
                v = modarith::add(v, lifted, mi.p);
            }
        }
        out[idx] = v;
    }
}

// out[row][s] = s < used ? in[row][table[s]] : 0 for s < out_stride (in: rows of in_len words).
extern "C" __global__ void pf_gather(u64* __restrict__ out, const u64* __restrict__ in,
                                     const unsigned* __restrict__ table, u64 used, u64 in_len, u64 out_stride,
                                     u64 rows) {
    GRID_STRIDE(idx, rows * out_stride) {
        const u64 s = idx % out_stride;
        const u64 row = idx / out_stride;
        out[idx] = s < used ? in[row * in_len + table[s]] : 0;
    }
}

// out[row][table[s]] = in[row][s] for s < used (in: rows of in_stride words; out: rows of
// out_len words, every word written once: `table` is a bijection onto 0 .. out_len).
extern "C" __global__ void pf_scatter(u64* __restrict__ out, const u64* __restrict__ in,
                                      const unsigned* __restrict__ table, u64 used, u64 in_stride, u64 out_len,
                                      u64 rows) {
    GRID_STRIDE(idx, rows * used) {
        const u64 s = idx % used;
        const u64 row = idx / used;
        out[row * out_len + table[s]] = in[row * in_stride + s];
    }
}

// One axis by its matrix: in [rows][before][len_in][after] -> out [rows][before][len_out][after],
// out[..][k][b] = sum_j matrix[limb][k][j] in[..][j][b]; `matrix` and its Shoup quotients
// `matrix_shoup`: L blocks of len_out x len_in. With `in_map` (the first axis), the input is
// the caller's rows of in_stride words instead, tensor position t at word in_map[t] (zero at
// or past in_limit). 32-bit indices (the host checks the sizes).
extern "C" __global__ void pf_direct_axis(u64* __restrict__ out, const u64* __restrict__ in,
                                          const unsigned* __restrict__ in_map, const u64* __restrict__ matrix,
                                          const u64* __restrict__ matrix_shoup, const Modulus* __restrict__ moduli,
                                          unsigned before, unsigned len_in, unsigned len_out, unsigned after,
                                          unsigned limbs, unsigned rows, unsigned in_stride, unsigned in_limit) {
    const unsigned per_row = before * len_out * after;
    const unsigned total = rows * per_row;
    for (unsigned idx = blockIdx.x * blockDim.x + threadIdx.x; idx < total; idx += gridDim.x * blockDim.x) {
        const unsigned b = idx % after;
        const unsigned rest = idx / after;
        const unsigned k = rest % len_out;
        const unsigned column = rest / len_out;  // row * before + a
        const unsigned limb = (column / before) % limbs;
        const u64 p = moduli[limb].p;
        const unsigned w_offset = (limb * len_out + k) * len_in;
        const u64* w = matrix + w_offset;
        const u64* ws = matrix_shoup + w_offset;
        u64 acc = 0;
        if (in_map == nullptr) {
            const u64* x = in + (u64)column * len_in * after + b;
#pragma unroll 4
            for (unsigned j = 0; j < len_in; ++j)
                acc = modarith::add(acc, modarith::mul_shoup(x[(u64)j * after], w[j], ws[j], p), p);
        } else {
            // The first axis reads the caller's rows through the map (the row's tensor
            // position -> word; a word at or past in_limit is zero).
            const unsigned row = column / before, a = column % before;
            const u64* x = in + (u64)row * in_stride;
            const unsigned* map = in_map + (a * len_in) * after + b;
#pragma unroll 4
            for (unsigned j = 0; j < len_in; ++j) {
                const unsigned source = map[j * after];
                const u64 v = source < in_limit ? x[source] : 0;
                acc = modarith::add(acc, modarith::mul_shoup(v, w[j], ws[j], p), p);
            }
        }
        out[idx] = acc;
    }
}

// Two neighbouring axes by their matrices in one pass (pf_direct_axis twice, without the
// tensor between them in global memory): in [rows][before][len_in0][len_in1][after] ->
// out [rows][before][len_out0][len_out1][after]. A block per (row, a, tile of `tile` columns b):
// the tile's len_in0 x len_in1 x tile words and both limb's matrices in shared memory, the first
// axis into len_out0 x len_in1 x tile words there, the second to the output. `in_map`,
// `in_stride` and `in_limit` as pf_direct_axis's (the first pass reads the caller's rows).
// Dynamic shared memory: (len_in0 len_in1 + len_out0 len_in1) tile + 2 (len_out0 len_in0 +
// len_out1 len_in1) words.
extern "C" __global__ void pf_direct_pair(u64* __restrict__ out, const u64* __restrict__ in,
                                          const unsigned* __restrict__ in_map, const u64* __restrict__ matrix0,
                                          const u64* __restrict__ matrix0_shoup, const u64* __restrict__ matrix1,
                                          const u64* __restrict__ matrix1_shoup, const Modulus* __restrict__ moduli,
                                          unsigned before, unsigned len_in0, unsigned len_out0, unsigned len_in1,
                                          unsigned len_out1, unsigned after, unsigned tile, unsigned limbs,
                                          unsigned in_stride, unsigned in_limit) {
    extern __shared__ u64 pair_shared[];
    const unsigned tiles = (after + tile - 1) / tile;
    const unsigned tile_index = blockIdx.x % tiles;
    const unsigned column = blockIdx.x / tiles;  // row * before + a
    const unsigned row = column / before, a = column % before;
    const unsigned limb = row % limbs;
    const u64 p = moduli[limb].p;
    const unsigned b0 = tile_index * tile;
    const unsigned width = min(tile, after - b0);
    const unsigned in_words = len_in0 * len_in1, mid_words = len_out0 * len_in1;
    const unsigned size0 = len_out0 * len_in0, size1 = len_out1 * len_in1;
    u64* x = pair_shared;          // [len_in0][len_in1][tile]
    u64* y = x + in_words * tile;  // [len_out0][len_in1][tile]
    u64* w0 = y + mid_words * tile;
    u64* w0s = w0 + size0;
    u64* w1 = w0s + size0;
    u64* w1s = w1 + size1;
    for (unsigned i = threadIdx.x; i < size0; i += blockDim.x) {
        w0[i] = matrix0[limb * size0 + i];
        w0s[i] = matrix0_shoup[limb * size0 + i];
    }
    for (unsigned i = threadIdx.x; i < size1; i += blockDim.x) {
        w1[i] = matrix1[limb * size1 + i];
        w1s[i] = matrix1_shoup[limb * size1 + i];
    }
    for (unsigned i = threadIdx.x; i < in_words * tile; i += blockDim.x) {
        const unsigned c = i % tile, ab = i / tile;  // ab = j0 len_in1 + j1
        u64 v = 0;
        if (c < width) {
            if (in_map == nullptr) {
                v = in[((u64)column * in_words + ab) * after + b0 + c];
            } else {
                const unsigned source = in_map[(a * in_words + ab) * after + b0 + c];
                v = source < in_limit ? in[(u64)row * in_stride + source] : 0;
            }
        }
        x[i] = v;
    }
    __syncthreads();
    // y[k0][j1][c] = sum_j0 w0[k0][j0] x[j0][j1][c]
    for (unsigned i = threadIdx.x; i < mid_words * tile; i += blockDim.x) {
        const unsigned c = i % tile, rest = i / tile;
        const unsigned j1 = rest % len_in1, k0 = rest / len_in1;
        u64 acc = 0;
        for (unsigned j0 = 0; j0 < len_in0; ++j0) {
            const unsigned w = k0 * len_in0 + j0;
            acc = modarith::add(acc, modarith::mul_shoup(x[(j0 * len_in1 + j1) * tile + c], w0[w], w0s[w], p), p);
        }
        y[i] = acc;
    }
    __syncthreads();
    // out[k0][k1][b0 + c] = sum_j1 w1[k1][j1] y[k0][j1][c]
    u64* z = out + (u64)column * len_out0 * len_out1 * after + b0;
    for (unsigned i = threadIdx.x; i < len_out0 * len_out1 * tile; i += blockDim.x) {
        const unsigned c = i % tile, rest = i / tile;
        if (c >= width) continue;
        const unsigned k1 = rest % len_out1, k0 = rest / len_out1;
        const u64* yk = y + k0 * len_in1 * tile + c;
        u64 acc = 0;
#pragma unroll 4
        for (unsigned j1 = 0; j1 < len_in1; ++j1) {
            const unsigned w = k1 * len_in1 + j1;
            acc = modarith::add(acc, modarith::mul_shoup(yk[j1 * tile], w1[w], w1s[w], p), p);
        }
        z[(u64)rest * after + c] = acc;
    }
}

// One prime axis p (len = p - 1 = 2^log_len <= 1024) by Rader's algorithm, one block of
// len / 2 threads per column (row, a, b), the convolution in shared memory (len words):
//   forward: A_i = x[powers[i]], NTT (Gentleman-Sande, bit-reversed out), times kernel, inverse
//     NTT (Cooley-Tukey), out[outputs[i]] = x[0] + A_i: in len_in = p, out len_out = p - 1;
//   inverse: A_i = x[outputs[i]], the same, out[powers[i]] = A_i and out[0] = p^-1 sum x (the
//     NTT's value at index 0): in p - 1, out p.
// Tables: powers, outputs (len u32 each, every limb); per limb: twiddles psi^j and psi^-j
// (len / 2 each, copied to shared memory) and the kernel (len, bit-reversed, with the
// factors), each with its Shoup quotients; p^-1 (one word). With `out_map` (the last axis),
// output tensor position t goes to word out_map[t] of the row's out_stride words instead.
extern "C" __global__ void pf_rader_axis(u64* __restrict__ out, const u64* __restrict__ in,
                                         const unsigned* __restrict__ powers, const unsigned* __restrict__ outputs,
                                         const u64* __restrict__ twiddles, const u64* __restrict__ twiddles_shoup,
                                         const u64* __restrict__ twiddles_inv,
                                         const u64* __restrict__ twiddles_inv_shoup, const u64* __restrict__ kernel,
                                         const u64* __restrict__ kernel_shoup, const u64* __restrict__ p_inv,
                                         const Modulus* __restrict__ moduli, const unsigned* __restrict__ out_map,
                                         unsigned before, unsigned log_len, unsigned after, unsigned limbs,
                                         unsigned inverse, unsigned out_stride) {
    extern __shared__ u64 conv[];  // len words, then the twiddles: 4 x len / 2 words
    const unsigned len = 1u << log_len, half_len = len >> 1;
    const unsigned column = blockIdx.x;  // (row, a, b)
    const unsigned b = column % after;
    const unsigned ra = column / after;  // row * before + a
    const unsigned limb = (ra / before) % limbs;
    const Modulus mi = moduli[limb];
    const u64 p = mi.p;
    const unsigned len_in = inverse ? len : len + 1;
    const unsigned len_out = inverse ? len + 1 : len;
    const u64* x = in + (u64)ra * len_in * after + b;
    u64* tw = conv + len;
    u64* tws = tw + half_len;
    u64* twi = tws + half_len;
    u64* twis = twi + half_len;
    for (unsigned i = threadIdx.x; i < half_len; i += blockDim.x) {
        tw[i] = twiddles[limb * half_len + i];
        tws[i] = twiddles_shoup[limb * half_len + i];
        twi[i] = twiddles_inv[limb * half_len + i];
        twis[i] = twiddles_inv_shoup[limb * half_len + i];
    }
    // Everything a thread reads from global memory besides its inputs is loaded here, with
    // them: the kernel's words for the product and where its two outputs go (and x_0), so that
    // the sixteen stages are the only wait between the loads and the stores.
    const unsigned* load = inverse ? outputs : powers;
    const unsigned* place = inverse ? powers : outputs;
    const unsigned row = ra / before, a = ra % before;
    u64 k_words[2], k_quotients[2];
    u64 targets[2];  // word offsets of the two outputs
    for (unsigned r = 0; r < 2; ++r) {
        const unsigned i = threadIdx.x + r * blockDim.x;  // blockDim.x = len / 2: two per thread
        conv[i] = x[(u64)load[i] * after];
        k_words[r] = kernel[limb * len + i];
        k_quotients[r] = kernel_shoup[limb * len + i];
        const unsigned pos = place[i];
        targets[r] = out_map == nullptr ? (u64)ra * len_out * after + (u64)pos * after + b
                                        : (u64)row * out_stride + out_map[(a * len_out + pos) * after + b];
    }
    const u64 x0 = inverse ? 0 : x[0];
    const u64 target0 = out_map == nullptr ? (u64)ra * len_out * after + b
                                           : (u64)row * out_stride + out_map[(a * len_out) * after + b];
    __syncthreads();
    for (unsigned h = log_len; h-- > 0;) {
        // half = 2^h; step = len / (2 half) = 2^(log_len - 1 - h).
        for (unsigned t = threadIdx.x; t < half_len; t += blockDim.x) {
            const unsigned j = t & ((1u << h) - 1);
            const unsigned i0 = ((t >> h) << (h + 1)) | j;
            const unsigned w = j << (log_len - 1 - h);
            const u64 u = conv[i0], v = conv[i0 + (1u << h)];
            conv[i0] = modarith::add(u, v, p);
            conv[i0 + (1u << h)] = modarith::mul_shoup(modarith::sub(u, v, p), tw[w], tws[w], p);
        }
        __syncthreads();
    }
    const u64 sum = conv[0];  // the value at frequency 0: the sum of the inputs
    __syncthreads();
    for (unsigned r = 0; r < 2; ++r) {
        const unsigned i = threadIdx.x + r * blockDim.x;
        conv[i] = modarith::mul_shoup(conv[i], k_words[r], k_quotients[r], p);
    }
    __syncthreads();
    for (unsigned h = 0; h < log_len; ++h) {
        for (unsigned t = threadIdx.x; t < half_len; t += blockDim.x) {
            const unsigned j = t & ((1u << h) - 1);
            const unsigned i0 = ((t >> h) << (h + 1)) | j;
            const unsigned w = j << (log_len - 1 - h);
            const u64 u = conv[i0], v = modarith::mul_shoup(conv[i0 + (1u << h)], twi[w], twis[w], p);
            conv[i0] = modarith::add(u, v, p);
            conv[i0 + (1u << h)] = modarith::sub(u, v, p);
        }
        __syncthreads();
    }
    // Output position `pos` along the axis goes to the tensor's word, or with `out_map` (the
    // last axis) to word out_map[t] of the row's out_stride words (targets above).
    for (unsigned r = 0; r < 2; ++r) {
        const unsigned i = threadIdx.x + r * blockDim.x;
        out[targets[r]] = inverse ? conv[i] : modarith::add(x0, conv[i], p);
    }
    if (inverse && threadIdx.x == 0) out[target0] = modarith::mul(sum, p_inv[limb], mi);
}
