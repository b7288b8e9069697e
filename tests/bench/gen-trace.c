/*
 * gen-trace.c - writes a synthetic dftracer 2.0.x trace for the benchmarks:
 * "[" framing, HH/FH/SH metadata with 16-hex-char string hashes, C_APP
 * functions enclosing POSIX and STDIO calls on several threads, written in
 * end order, compressed as independent gzip members of 16 MiB of text
 * (as dftracer 2.0.x does).
 *
 * usage: gen-trace MEGABYTES [LEVEL] > trace.pfw.gz
 * MEGABYTES of uncompressed text; LEVEL the zlib level (default 1, to keep
 * generation fast; decompression speed hardly depends on it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MEMBER (16u << 20)

static char *buf;
static size_t len;
static int level = 1;
static unsigned long long total;

static void
flush_member(void)
{
	z_stream zs;
	static unsigned char out[1 << 20];

	if (len == 0)
		return;
	memset(&zs, 0, sizeof(zs));
	if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		exit(2);
	zs.next_in = (unsigned char *)buf;
	zs.avail_in = (uInt)len;
	int rc;

	do {
		zs.next_out = out;
		zs.avail_out = sizeof(out);
		rc = deflate(&zs, Z_FINISH);
		fwrite(out, 1, sizeof(out) - zs.avail_out, stdout);
	} while (rc != Z_STREAM_END);
	deflateEnd(&zs);
	total += len;
	len = 0;
}

static void
emit(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

#include <stdarg.h>
static void
emit(const char *fmt, ...)
{
	va_list ap;

	if (len + 4096 > MEMBER)
		flush_member();
	va_start(ap, fmt);
	len += (size_t)vsnprintf(buf + len, MEMBER - len, fmt, ap);
	va_end(ap);
}

int
main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: gen-trace MEGABYTES [LEVEL]\n");
		return 2;
	}
	unsigned long long want = strtoull(argv[1], NULL, 10) << 20;

	if (argc > 2)
		level = atoi(argv[2]);
	buf = malloc(MEMBER);
	if (buf == NULL)
		return 2;
	const char *hh = "6882804a826580cd";
	int pid = 4242;
	long long id = 1, ts = 1795995963000000LL;
	unsigned seed = 12345;

	emit("[\n");
	emit("{\"id\":%lld,\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":%d,"
	     "\"tid\":%d,\"ph\":\"M\",\"args\":{\"hhash\":\"%s\",\"name\":"
	     "\"node001\",\"value\":\"%s\"}}\n", id++, pid, pid, hh, hh);
	emit("{\"id\":%lld,\"name\":\"SH\",\"cat\":\"dftracer\",\"pid\":%d,"
	     "\"tid\":%d,\"ph\":\"M\",\"args\":{\"hhash\":\"%s\",\"name\":"
	     "\"./bench\",\"value\":\"3d879ba862bea48c\"}}\n", id++, pid, pid,
	     hh);
	emit("{\"id\":%lld,\"name\":\"start\",\"cat\":\"dftracer\",\"pid\":%d,"
	     "\"tid\":%d,\"ts\":%lld,\"dur\":0,\"ph\":\"X\",\"args\":{"
	     "\"hhash\":\"%s\",\"p_idx\":-1,\"level\":1,\"ppid\":1,"
	     "\"version\":200002}}\n", id++, pid, pid, ts, hh);
	for (long step = 0; total + len < want; step++) {
		int tid = pid + (int)(step % 4);
		char fh[17];

		/* 64 files in turn: the key set does not grow with the trace */
		long file = (step / 100) % 64;

		snprintf(fh, sizeof(fh), "%016llx",
			 (unsigned long long)(file + 1) * 0x9e3779b97f4aULL);
		if (step / 100 < 64 && step % 100 < 4)
			emit("{\"id\":%lld,\"name\":\"FH\",\"cat\":\"dftracer\","
			     "\"pid\":%d,\"tid\":%d,\"ph\":\"M\",\"args\":{"
			     "\"hhash\":\"%s\",\"name\":\"/scratch/data/"
			     "part-%05ld.bin\",\"value\":\"%s\"}}\n", id++,
			     pid, tid, hh, file, fh);
		long long f0 = ts, fid = id++, off = 0;

		ts += 3;
		emit("{\"id\":%lld,\"name\":\"open64\",\"cat\":\"POSIX\","
		     "\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"dur\":%u,\"ph\":\"X\","
		     "\"args\":{\"hhash\":\"%s\",\"p_idx\":%lld,\"level\":2,"
		     "\"flags\":0,\"fhash\":\"%s\"}}\n", id++, pid, tid, ts,
		     20 + (seed = seed * 1103515245 + 12345) % 30, hh, fid, fh);
		ts += 60;
		for (int i = 0; i < 8; i++) {
			unsigned d = 30 + (seed = seed * 1103515245 + 12345) %
					  50;

			emit("{\"id\":%lld,\"name\":\"read\",\"cat\":\"POSIX\","
			     "\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"dur\":%u,"
			     "\"ph\":\"X\",\"args\":{\"hhash\":\"%s\","
			     "\"level\":2,\"ret\":65536,\"p_idx\":%lld,"
			     "\"count\":65536,\"fhash\":\"%s\"}}\n", id++, pid,
			     tid, ts, d, hh, fid, fh);
			ts += d + 2;
			off += 65536;
		}
		emit("{\"id\":%lld,\"name\":\"lseek64\",\"cat\":\"POSIX\","
		     "\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"dur\":2,\"ph\":\"X\","
		     "\"args\":{\"hhash\":\"%s\",\"p_idx\":%lld,\"level\":2,"
		     "\"ret\":4096,\"whence\":0,\"offset\":4096,\"fhash\":"
		     "\"%s\"}}\n", id++, pid, tid, ts, hh, fid, fh);
		ts += 4;
		emit("{\"id\":%lld,\"name\":\"pread64\",\"cat\":\"POSIX\","
		     "\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"dur\":9,\"ph\":\"X\","
		     "\"args\":{\"hhash\":\"%s\",\"level\":2,\"ret\":512,"
		     "\"offset\":%lld,\"p_idx\":%lld,\"count\":512,\"fhash\":"
		     "\"%s\"}}\n", id++, pid, tid, ts, hh,
		     (long long)((seed = seed * 1103515245 + 12345) % 1000) * 512,
		     fid, fh);
		ts += 12;
		for (int i = 0; i < 16; i++) {
			unsigned d = 2 + (seed = seed * 1103515245 + 12345) % 9;

			emit("{\"id\":%lld,\"name\":\"write\",\"cat\":\"POSIX\","
			     "\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"dur\":%u,"
			     "\"ph\":\"X\",\"args\":{\"hhash\":\"%s\","
			     "\"level\":2,\"ret\":4096,\"p_idx\":%lld,"
			     "\"count\":4096,\"fhash\":\"%s\"}}\n", id++, pid,
			     tid, ts, d, hh, fid, fh);
			ts += d + 1;
		}
		emit("{\"id\":%lld,\"name\":\"fwrite\",\"cat\":\"STDIO\","
		     "\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"dur\":5,\"ph\":\"X\","
		     "\"args\":{\"hhash\":\"%s\",\"level\":2,\"ret\":16,"
		     "\"size\":8,\"count\":16,\"p_idx\":%lld,\"fhash\":\"%s\"}}"
		     "\n", id++, pid, tid, ts, hh, fid, fh);
		ts += 7;
		emit("{\"id\":%lld,\"name\":\"close\",\"cat\":\"POSIX\","
		     "\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"dur\":4,\"ph\":\"X\","
		     "\"args\":{\"hhash\":\"%s\",\"p_idx\":%lld,\"level\":2,"
		     "\"ret\":0,\"fhash\":\"%s\"}}\n", id++, pid, tid, ts, hh,
		     fid, fh);
		ts += 6;
		emit("{\"id\":%lld,\"name\":\"%s\",\"cat\":\"C_APP\","
		     "\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"dur\":%lld,\"ph\":"
		     "\"X\",\"args\":{\"hhash\":\"%s\",\"p_idx\":-1,\"level\":1,"
		     "\"file\":\"src/bench.c\",\"line\":%d}}\n", fid,
		     step % 3 ? "process_batch" : "write_records", pid, tid, f0,
		     ts - f0, hh, step % 3 ? 120 : 64);
		ts += 20;
	}
	emit("{\"id\":%lld,\"name\":\"end\",\"cat\":\"dftracer\",\"pid\":%d,"
	     "\"tid\":%d,\"ts\":%lld,\"dur\":0,\"ph\":\"X\",\"args\":{"
	     "\"hhash\":\"%s\",\"p_idx\":-1,\"level\":1,\"num_events\":%lld}}"
	     "\n]", id, pid, pid, ts, hh, id - 1);
	flush_member();
	return 0;
}
