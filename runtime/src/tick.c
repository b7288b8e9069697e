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
 *
 * A reading pair whose ticks lie far apart (a preempted thread; a clock
 * read that is a system call or slowed down, as under valgrind) is
 * retried; after DFT_PAIR_FAILS failed ones in a row, one attempt is
 * made a time and a wide pair is taken, its ratio kept once the span
 * is a hundred times the pair's width (1 %): a call then makes one clock
 * reading at most while no ratio is kept, never the eight of two full
 * retry rounds.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#if defined(__GLIBC__) && defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#define DFT_GLIBC_CPU_FEATURES 1
#endif
#endif
#endif

#include "internal.h"

int dft_tsc;

_Atomic uint64_t dft_tick_mult;	/* ns per tick, 32.32 fixed point */
#define mult dft_tick_mult
static uint64_t ns0, tick0;		/* the first reading pair */
static _Atomic uint64_t span;		/* ns between the pair mult is from */
#define DFT_PAIR_WIDTH 2000	/* ticks: a close pair */
#define DFT_PAIR_FAILS 16
static _Atomic unsigned fails;		/* pairs that were not close, since
					 * the last close one */

uint64_t dft_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* From the CPU features glibc read at start-up when it has them (2.33
 * and later): a CPUID instruction traps to the hypervisor on a virtual
 * machine, 5-13 us each here, two of them a traced process. */
static int tsc_invariant(void)
{
#if defined(DFT_GLIBC_CPU_FEATURES)
	return CPU_FEATURE_PRESENT(INVARIANT_TSC) != 0;
#elif defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;

	if (__get_cpuid_max(0x80000000u, NULL) < 0x80000007u)
		return 0;
	__cpuid(0x80000007u, a, b, c, d);
	return (d >> 8) & 1;
#else
	return 0;
#endif
}

/* A clock reading and the tick at it: the clock read between two ticks,
 * the pair kept only when they are close (the thread was not preempted
 * in between), so that one reading is off by at most half that width
 * (*w, in ticks).  After DFT_PAIR_FAILS pairs in a row that were not, a
 * wide one is taken (one try), until one is close again. */
static int pair(uint64_t *ns, uint64_t *tk, uint64_t *w)
{
	int wide = atomic_load_explicit(&fails, memory_order_relaxed) >=
		   DFT_PAIR_FAILS;

	for (int i = 0; i < (wide ? 1 : 4); i++) {
		uint64_t a = dft_tick(), n = dft_mono_ns(), b = dft_tick();

		if (b >= a && (b - a < DFT_PAIR_WIDTH || wide)) {
			*ns = n;
			*tk = a + (b - a) / 2;
			*w = b - a;
			if (*w < DFT_PAIR_WIDTH &&
			    atomic_load_explicit(&fails, memory_order_relaxed))
				atomic_store_explicit(&fails, 0,
						      memory_order_relaxed);
			return 0;
		}
		atomic_fetch_add_explicit(&fails, 1, memory_order_relaxed);
	}
	return -1;
}

/* ns per tick from the first pair to (ns, tk), 32.32; 0 when the pair
 * is not after it or gives a rate outside 0.1 to 20 GHz (a bad pair) */
static uint64_t ratio(uint64_t ns, uint64_t tk)
{
	uint64_t m;

	if (tk <= tick0 || ns <= ns0)
		return 0;
	m = (uint64_t)(((unsigned __int128)(ns - ns0) << 32) / (tk - tick0));
	return m < (1ull << 32) / 20 || m > (1ull << 32) * 10 ? 0 : m;
}

void dft_tick_init(int want)
{
	uint64_t w;

	dft_tsc = want && tsc_invariant();
	atomic_store(&mult, 0);
	atomic_store(&span, 0);
	atomic_store(&fails, 0);
	if (dft_tsc && pair(&ns0, &tick0, &w) != 0)
		dft_tsc = 0;	/* no steady reading: clock_gettime */
}

/* A reading pair: the ratio re-measured once the span since the first
 * pair has doubled (and is 100 us at least: a close pair is off by a few
 * hundred ticks at most, well under 1 % of that; a wide one must be under
 * 1 % of the span).  Returns this pair's ratio, kept or not (0: none). */
static uint64_t anchor(void)
{
	uint64_t ns, tk, s, m, w;

	if (!dft_tsc || pair(&ns, &tk, &w) != 0 || !(m = ratio(ns, tk)))
		return 0;
	s = ns - ns0;
	if (s <= 2000)
		return 0;	/* too short for any ratio */
	if (s < 100000 || s < 2 * atomic_load(&span) ||
	    (w >= DFT_PAIR_WIDTH && (w + DFT_PAIR_WIDTH) * 100 > tk - tick0))
		return m;
	atomic_store(&mult, m);
	atomic_store(&span, s);
	return m;
}

/* A reading pair taken anyway (an aggregated record opens) */
void dft_tick_anchor(void)
{
	(void)anchor();
}

/* dft_tick_ns (internal.h) without a ratio yet: one pair's (under 100 us
 * since the first pair, or a wide pair under 1 % of the span) for now */
uint64_t dft_tick_ns_slow(uint64_t ticks)
{
	uint64_t m;

	if (!dft_tsc)
		return ticks;
	m = atomic_load_explicit(&mult, memory_order_relaxed);
	if (!m && !(m = anchor()))
		return ticks;
	return (uint64_t)(((unsigned __int128)ticks * m) >> 32);
}

uint64_t dft_ns_ticks(uint64_t ns)
{
	uint64_t m;

	if (!dft_tsc)
		return ns;
	m = atomic_load_explicit(&mult, memory_order_relaxed);
	if (!m) {	/* no ratio yet: from the one dft_tick_ns takes */
		m = dft_tick_ns(1ull << 32);
		if (!m)
			return ns;
	}
	return (uint64_t)(((unsigned __int128)ns << 32) / m);
}
