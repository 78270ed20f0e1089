// Benchmark support: a kernel that keeps the GPU busy while the host queues the timed work
// behind it, so CUDA events then measure device time, not host launch overhead.
#include <cstdint>

// One thread spins for `nanoseconds` of the global timer.
extern "C" __global__ void spin_wait(unsigned long long nanoseconds) {
    unsigned long long start;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    unsigned long long now = start;
    while (now - start < nanoseconds) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    }
}
