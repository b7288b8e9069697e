/* h5app - a stand-in MPI + HDF5 program whose Makefile finds HDF5 through
 * $(HDF5_HOME), as h5bench's CMake does. */
#include <stdio.h>

#include <hdf5.h>
#include <mpi.h>

static int
write_version(const char *path)
{
	unsigned maj, min, rel;
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -1;
	H5get_libversion(&maj, &min, &rel);
	fprintf(f, "HDF5 %u.%u.%u\n", maj, min, rel);
	return fclose(f);
}

int
main(int argc, char **argv)
{
	int rc;

	MPI_Init(&argc, &argv);
	rc = write_version(argc > 1 ? argv[1] : "version.txt");
	MPI_Finalize();
	return rc != 0;
}
