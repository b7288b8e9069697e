# gen-nested-trace.awk - writes a dftracer 2.0.x style trace (string hashes,
# "[" framing, HH/FH metadata) with nested application functions and
# N child I/O events (default 200000), for the chunk-stream tests:
#   awk -v n=200000 [-v late=1] [-v tmp=PREFIX] -f tests/gen-nested-trace.awk > t.pfw
# (the threads' lines wait in PREFIX.1 and PREFIX.2, default
# ./gen-nested-trace.tmp.*, removed at the end: memory stays small)
# With late=1 the FH line of thread 2's file comes last, after the events
# that use its hash (dft-split then appends it to the earlier chunks).
# Events are written when they end, children before their parents, as
# dftracer does. Thread 1: main > write_records > open, n/2 writes (every
# 16th of 8 KiB, the others 64 B), fsync, close; main > read_back >
# read_block (n/400 of them) > 100 reads and an lseek each. Thread 2:
# worker > open, n/4 - 2 writes of 512 B after an lseek to a scattered
# offset (4 KiB + 100) every 64: only the file position tells their
# alignment, so it must carry across chunks.
# Thread 1's events and thread 2's are interleaved in blocks of 7 lines.
function ev(name, cat, tid, ts, dur, extra) {
	printf("{\"id\":%d,\"name\":\"%s\",\"cat\":\"%s\",\"pid\":4242,\"tid\":%d,\"ts\":%.0f,\"dur\":%d,\"ph\":\"X\",\"args\":{\"hhash\":\"a1b2c3d4e5f60718\"%s}}\n", ++id, name, cat, tid, ts, dur, extra) >(tmp "." tid)
}
BEGIN {
	if (n == "") n = 200000
	if (tmp == "") tmp = "gen-nested-trace.tmp"
	t0 = 1700000000000000
	F1 = ",\"fhash\":\"00000000000000f1\""
	F2 = ",\"fhash\":\"00000000000000f2\""
	print "["
	print "{\"id\":1,\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":4242,\"tid\":4242,\"ph\":\"M\",\"args\":{\"hhash\":\"a1b2c3d4e5f60718\",\"name\":\"node1\",\"value\":\"a1b2c3d4e5f60718\"}}"
	print "{\"id\":2,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":4242,\"tid\":4242,\"ph\":\"M\",\"args\":{\"hhash\":\"a1b2c3d4e5f60718\",\"name\":\"/scratch/run/data/out.bin\",\"value\":\"00000000000000f1\"}}"
	fh2 = "{\"id\":3,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":4242,\"tid\":4243,\"ph\":\"M\",\"args\":{\"hhash\":\"a1b2c3d4e5f60718\",\"name\":\"/scratch/run/shared.bin\",\"value\":\"00000000000000f2\"}}"
	if (!late) print fh2
	id = 3
	# thread 1
	ts = t0 + 10
	wstart = ts
	ev("open", "POSIX", 1, ts, 40, F1); ts += 50
	for (i = 0; i < n / 2; i++) {
		b = i % 16 == 15 ? 8192 : 64
		ev("write", "POSIX", 1, ts, 3 + i % 5, F1 ",\"ret\":" b); ts += 10
	}
	ev("fsync", "POSIX", 1, ts, 900, F1); ts += 1000
	ev("close", "POSIX", 1, ts, 2, F1); ts += 10
	ev("write_records", "C_APP", 1, wstart - 5, ts - wstart + 10, ""); ts += 20
	rstart = ts
	ev("open", "POSIX", 1, ts, 30, F1); ts += 40
	for (k = 0; k < n / 400; k++) {
		bstart = ts
		ev("lseek", "POSIX", 1, ts, 1, F1 ",\"offset\":" k * 409600 ",\"whence\":0,\"ret\":" k * 409600); ts += 5
		for (i = 0; i < 100 - (k == 0 ? 2 : 0); i++) {
			ev("read", "POSIX", 1, ts, 4 + i % 3, F1 ",\"ret\":4096"); ts += 8
		}
		ev("read_block", "C_APP", 1, bstart - 1, ts - bstart + 2, ""); ts += 5
	}
	ev("read_back", "C_APP", 1, rstart - 3, ts - rstart + 6, ""); ts += 10
	ev("main", "C_APP", 1, t0, ts - t0 + 5, "")
	# thread 2
	ts = t0 + 100
	ev("open", "POSIX", 2, ts, 20, F2); ts += 30
	for (i = 0; i < n / 4 - 2; i++) {
		if (i % 64 == 0) {
			off = (i * 7919) % 1000 * 4096 + 100
			ev("lseek", "POSIX", 2, ts, 1, F2 ",\"offset\":" off ",\"whence\":0,\"ret\":" off); ts += 5
		}
		ev("write", "POSIX", 2, ts, 6 + i % 4, F2 ",\"ret\":512"); ts += 30
	}
	ev("worker", "C_APP", 2, t0 + 50, ts - t0, "")
	# interleave the two threads in blocks of 7 lines
	close(tmp ".1")
	close(tmp ".2")
	m1 = m2 = 1
	while (m1 || m2) {
		for (j = 0; j < 7 && m1; j++)
			if ((m1 = (getline l < (tmp ".1")) > 0)) print l
		for (j = 0; j < 7 && m2; j++)
			if ((m2 = (getline l < (tmp ".2")) > 0)) print l
	}
	close(tmp ".1")
	close(tmp ".2")
	system("rm -f '" tmp ".1' '" tmp ".2'")
	if (late) print fh2
	print "]"
}
