# tests/gen-mpiio-trace.awk - small MPI-IO / HDF5 traces in the format of
# /work/notes/MPIIO-EVENTS.md (dftracer Gen-2 lines; MPIIO and HDF5 calls
# enclose the POSIX calls they cause, inner calls first, as a tracer that
# writes each call at its end does). Used by tests/analyze-mpiio.bats.
#
#   awk -v mode=M -v n=N -v m=M -f tests/gen-mpiio-trace.awk
#
# mode mpiio: 2 ranks; MPI_Init, MPI_File_open (open64 inside), n small
#   independent writes (pwrite64 inside MPI_File_write_at) per rank, m
#   non-blocking collective 2 MiB reads (pread64 inside
#   MPI_File_iread_at_all), MPI_File_close (close inside), MPI_Finalize;
#   one shared file.
# mode hdf5: 1 rank; H5Pset_fapl_mpio, H5Fcreate > MPI_File_open > open64,
#   n x H5Dwrite (collective) > MPI_File_write_at_all > pwrite64,
#   H5Fclose > MPI_File_close > close.
# mode async: 2 ranks; MPI_Init, MPI_File_open, n blocking writes
#   (MPI_File_write_at > pwrite64) then n blocking reads (MPI_File_read_at
#   > pread64), each call 100 us and followed by m us of computation,
#   MPI_File_close, and MPI_Finalize 1 s later; one shared file.
# mode posix / posix1: 2 ranks with MPI_Init and n POSIX writes each, on
#   one shared file (posix) or a file per rank (posix1); no MPI-IO.
# mode split: m hosts (at least 1) of 2 ranks each; MPI_Init,
#   MPI_File_open with the hint cb_nodes=n (none when n is 0), 3 split
#   collective writes of 4096 bytes (MPI_File_write_all_begin, then
#   MPI_File_write_all_end with the pwrite64 inside), 1 split collective
#   read (MPI_File_read_at_all_begin / _end > pread64), MPI_File_close,
#   MPI_Finalize; one shared file.
function ev(id, name, cat, pid, ts, dur, args) {
	printf "{\"id\":%d,\"name\":\"%s\",\"cat\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%d,\"dur\":%d,\"ph\":\"X\",\"args\":{\"hhash\":\"%s\"%s}}\n", id, name, cat, pid, pid, ts, dur, HOST, args
}
function meta(pid, path, h) {
	printf "{\"id\":0,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":%d,\"tid\":%d,\"ph\":\"M\",\"args\":{\"hhash\":\"%s\",\"name\":\"%s\",\"value\":\"%s\"}}\n", pid, pid, HOST, path, h
}
function hdf5(pid,    i, t) {
	ev(1, "H5Pset_fapl_mpio", "HDF5", pid, 500, 2, "")
	meta(pid, "/scratch/mpi/data.h5", "f2")
	ev(2, "open64", "POSIX", pid, 1020, 30, ",\"fhash\":\"f2\",\"ret\":3")
	ev(3, "MPI_File_open", "MPIIO", pid, 1010, 60, ",\"fhash\":\"f2\",\"amode\":37,\"comm_size\":1,\"ret\":0")
	ev(4, "H5Fcreate", "HDF5", pid, 1000, 100, ",\"fhash\":\"f2\"")
	for (i = 0; i < n; i++) {
		t = 2000 + i * 1000
		ev(5, "pwrite64", "POSIX", pid, t + 20, 100, ",\"fhash\":\"f2\",\"ret\":4096,\"offset\":" i * 4096)
		ev(6, "MPI_File_write_at_all", "MPIIO", pid, t + 10, 150, ",\"fhash\":\"f2\",\"count\":4096,\"dtype_size\":1,\"size\":4096,\"offset\":" i * 4096 ",\"collective\":1,\"nonblocking\":0,\"ret\":0")
		ev(7, "H5Dwrite", "HDF5", pid, t, 200, ",\"fhash\":\"f2\",\"size\":4096,\"collective\":1")
	}
	t = 2000 + n * 1000
	ev(8, "close", "POSIX", pid, t + 10, 10, ",\"fhash\":\"f2\",\"ret\":0")
	ev(9, "MPI_File_close", "MPIIO", pid, t + 5, 30, ",\"fhash\":\"f2\",\"ret\":0")
	ev(10, "H5Fclose", "HDF5", pid, t, 50, ",\"fhash\":\"f2\"")
}
function async(pid, r,    i, t, off, k, nm, pn) {
	if (r == 0)
		meta(pid, "/scratch/mpi/async.dat", "f5")
	ev(1, "MPI_Init", "MPI", pid, 0, 100, "")
	ev(2, "open64", "POSIX", pid, 1010, 20, ",\"fhash\":\"f5\",\"ret\":3")
	ev(3, "MPI_File_open", "MPIIO", pid, 1000, 50, ",\"fhash\":\"f5\",\"amode\":37,\"comm_size\":2,\"ret\":0")
	t = 2000
	for (k = 0; k < 2; k++)
		for (i = 0; i < n; i++) {
			off = (r * n + i) * 1048576
			nm = k ? "MPI_File_read_at" : "MPI_File_write_at"
			pn = k ? "pread64" : "pwrite64"
			ev(4, pn, "POSIX", pid, t + 5, 90, ",\"fhash\":\"f5\",\"ret\":1048576,\"offset\":" off)
			ev(5, nm, "MPIIO", pid, t, 100, ",\"fhash\":\"f5\",\"count\":1048576,\"dtype_size\":1,\"size\":1048576,\"offset\":" off ",\"collective\":0,\"nonblocking\":0,\"ret\":0")
			t += 100 + m
		}
	ev(6, "close", "POSIX", pid, t + 10, 5, ",\"fhash\":\"f5\",\"ret\":0")
	ev(7, "MPI_File_close", "MPIIO", pid, t, 20, ",\"fhash\":\"f5\",\"ret\":0")
	ev(8, "MPI_Finalize", "MPI", pid, 1000000, 10, "")
}
function splitcoll(pid, r,    i, t, hint) {
	HOST = "h" (int(r / 2) + 1)
	if (r % 2 == 0) {
		printf "{\"id\":0,\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":%d,\"tid\":%d,\"ph\":\"M\",\"args\":{\"hhash\":\"%s\",\"name\":\"node%d\",\"value\":\"%s\"}}\n", pid, pid, HOST, int(r / 2) + 1, HOST
		meta(pid, "/scratch/mpi/split.dat", "f6")
	}
	hint = n > 0 ? ",\"hints\":\"cb_nodes=" n ";romio_cb_write=enable\",\"cb_nodes\":" n : ""
	ev(1, "MPI_Init", "MPI", pid, 0, 100, ",\"ret\":0")
	ev(2, "open64", "POSIX", pid, 1010, 20, ",\"fhash\":\"f6\",\"ret\":3")
	ev(3, "MPI_File_open", "MPIIO", pid, 1000, 50, ",\"fhash\":\"f6\",\"amode\":37,\"comm_size\":" 2 * m ",\"ret\":0" hint)
	for (i = 0; i < 4; i++) {
		t = 2000 + i * 1000
		ev(4, i < 3 ? "MPI_File_write_all_begin" : "MPI_File_read_at_all_begin", "MPIIO", pid, t, 20 + i, ",\"fhash\":\"f6\",\"count\":1024,\"dtype_size\":4,\"size\":4096," (i < 3 ? "" : "\"offset\":" r * 4096 ",") "\"collective\":1,\"nonblocking\":1,\"ret\":0")
		ev(5, i < 3 ? "pwrite64" : "pread64", "POSIX", pid, t + 110, 50, ",\"fhash\":\"f6\",\"ret\":4096,\"offset\":" ((i % 3) * 2 * m + r) * 4096)
		ev(6, i < 3 ? "MPI_File_write_all_end" : "MPI_File_read_at_all_end", "MPIIO", pid, t + 100, 80, ",\"fhash\":\"f6\",\"collective\":1,\"nonblocking\":1,\"ret\":0")
	}
	ev(7, "close", "POSIX", pid, 9010, 5, ",\"fhash\":\"f6\",\"ret\":0")
	ev(8, "MPI_File_close", "MPIIO", pid, 9000, 20, ",\"fhash\":\"f6\",\"ret\":0")
	ev(9, "MPI_Finalize", "MPI", pid, 10000, 10, ",\"ret\":0")
}
function posix(pid, r, shared,    i, h) {
	h = shared ? "f3" : "f4" r
	if (!shared || r == 0)
		meta(pid, shared ? "/scratch/mpi/all.dat" : "/scratch/mpi/rank" r ".dat", h)
	ev(1, "MPI_Init", "MPI", pid, 1000, 50, "")
	ev(2, "open64", "POSIX", pid, 1100, 20, ",\"fhash\":\"" h "\",\"ret\":3")
	for (i = 0; i < n; i++)
		ev(3, "pwrite64", "POSIX", pid, 2000 + i * 100 + r * 7, 5, ",\"fhash\":\"" h "\",\"ret\":1000,\"offset\":" (r * n + i) * 1000)
	ev(4, "close", "POSIX", pid, 200000, 5, ",\"fhash\":\"" h "\",\"ret\":0")
	ev(5, "MPI_Finalize", "MPI", pid, 300000, 10, "")
}
BEGIN {
	HOST = "h1"
	print "["
	if (mode == "split") {
		if (m < 1)
			m = 1
		for (r = 0; r < 2 * m; r++)
			splitcoll(100 + r, r)
		print "]"
		exit
	}
	for (r = 0; r < 2; r++) {
		if (mode == "hdf5" && r == 1)
			break
		pid = 100 + r
		# one trace: each name line once (dft-split keeps one copy)
		if (r == 0)
			printf "{\"id\":0,\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":%d,\"tid\":%d,\"ph\":\"M\",\"args\":{\"hhash\":\"h1\",\"name\":\"node1\",\"value\":\"h1\"}}\n", pid, pid
		if (mode == "hdf5") {
			hdf5(pid)
			continue
		}
		if (mode == "async") {
			async(pid, r)
			continue
		}
		if (mode == "posix" || mode == "posix1") {
			posix(pid, r, mode == "posix")
			continue
		}
		pid = 100 + r
		if (r == 0)
			meta(pid, "/scratch/mpi/shared.dat", "f1")
		ev(1, "MPI_Init", "MPI", pid, 1000, 50, "")
		ev(2, "open64", "POSIX", pid, 1110, 20, ",\"fhash\":\"f1\",\"ret\":3")
		ev(3, "MPI_File_open", "MPIIO", pid, 1100, 50, ",\"fhash\":\"f1\",\"amode\":37,\"comm_size\":2,\"ret\":0")
		for (i = 0; i < n; i++) {
			t = 2000 + i * 100 + r * 7
			off = (r * n + i) * 1000
			ev(4, "pwrite64", "POSIX", pid, t + 2, 5, ",\"fhash\":\"f1\",\"ret\":1000,\"offset\":" off)
			ev(5, "MPI_File_write_at", "MPIIO", pid, t, 10, ",\"fhash\":\"f1\",\"count\":250,\"dtype_size\":4,\"size\":1000,\"offset\":" off ",\"collective\":0,\"nonblocking\":0,\"ret\":0")
		}
		for (i = 0; i < m; i++) {
			t = 100000 + i * 1000
			ev(6, "pread64", "POSIX", pid, t + 5, 300, ",\"fhash\":\"f1\",\"ret\":2097152,\"offset\":" (i * 2 + r) * 2097152)
			ev(7, "MPI_File_iread_at_all", "MPIIO", pid, t, 400, ",\"fhash\":\"f1\",\"count\":2097152,\"dtype_size\":1,\"size\":2097152,\"offset\":" (i * 2 + r) * 2097152 ",\"collective\":1,\"nonblocking\":1,\"ret\":0")
		}
		ev(8, "close", "POSIX", pid, 200010, 5, ",\"fhash\":\"f1\",\"ret\":0")
		ev(9, "MPI_File_close", "MPIIO", pid, 200000, 20, ",\"fhash\":\"f1\",\"ret\":0")
		ev(10, "MPI_Finalize", "MPI", pid, 300000, 10, "")
	}
	print "]"
}
