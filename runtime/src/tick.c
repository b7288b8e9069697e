/*
 * tick.c - the cheap clock of folded calls and aggregated I/O.
 *
 * A folded call (a throttled function) or an aggregated I/O call needs
 * only its duration, and the two vDSO clock_gettime reads were most of
 * its cost (~60 of ~77 ns).  With an invariant TSC (CPUID
 * 0x80000007:EDX[8], what Linux reports as constant_tsc and nonstop_tsc)
 * those durations come from rdtsc, converted to nanoseconds with a ratio
 * taken from clock_gettime readings the runtime makes anyway: one at
 * initialisation and one whenever an aggregated record opens.  No
 * calibration sleep at start-up: the ratio is measured over the span
 * between the first reading and the latest, re-measured each time that
 * span has doubled, so its error (the ~50 ns skew of one reading pair
 * over the span) falls as the process runs.  Timestamps written to the
 * trace stay on CLOCK_REALTIME: a folded call's start is the realtime
 * reading of its record less the ticks since.  Without an invariant TSC,
 * or with DFTRACER_TSC=0, a tick is a CLOCK_MONOTONIC nanosecond.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "internal.h"

int dft_tsc;

static _Atomic uint64_t mult;		/* ns per tick, 32.32 fixed point */
static uint64_t ns0, tick0;		/* the first reading pair */
static _Atomic uint64_t span;		/* ns between the pair mult is from */

uint64_t dft_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int tsc_invariant(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;

	if (__get_cpuid_max(0x80000000u, NULL) < 0x80000007u)
		return 0;
	__cpuid(0x80000007u, a, b, c, d);
	return (d >> 8) & 1;
#else
	return 0;
#endif
}

void dft_tick_init(int want)
{
	dft_tsc = want && tsc_invariant();
	atomic_store(&mult, 0);
	atomic_store(&span, 0);
	if (dft_tsc) {
		ns0 = dft_mono_ns();
		tick0 = dft_tick();
	}
}

/* A reading pair taken anyway: the ratio re-measured once the span since
 * the first pair has doubled. */
void dft_tick_anchor(void)
{
	uint64_t ns, tk, s;

	if (!dft_tsc)
		return;
	ns = dft_mono_ns();
	tk = dft_tick();
	s = ns - ns0;
	if (tk <= tick0 || s < 20000 || s < 2 * atomic_load(&span))
		return;
	atomic_store(&mult, (uint64_t)(((unsigned __int128)s << 32) /
				       (tk - tick0)));
	atomic_store(&span, s);
}

uint64_t dft_tick_ns(uint64_t ticks)
{
	uint64_t m;

	if (!dft_tsc)
		return ticks;
	m = atomic_load_explicit(&mult, memory_order_relaxed);
	if (DFT_UNLIKELY(!m)) {
		dft_tick_anchor();
		m = atomic_load(&mult);
		if (!m)		/* under 20 us since start: one cycle a ns */
			return ticks;
	}
	return (uint64_t)(((unsigned __int128)ticks * m) >> 32);
}
