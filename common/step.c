/*
 * step.c - the `step` record each tool emits for its own work
 * (man dft(7), RECORD TYPES, step).
 */
#include "dft.h"

/*
 * Every tool reports its own work as
 * {"type":"step","v":1,"step":NAME,"tool":PROG,"started_at":ISO,
 *  "ended_at":ISO,"duration_s":N,"status":"ok"|"failed"|"partial"|"skipped"}
 */
void
dft_step_begin(struct dft_step *s, const char *name)
{
	s->name = name;
	dft_iso_now(s->started_at, sizeof(s->started_at));
	s->t0 = dft_monotonic();
}

/* Returns the record (caller emits/puts it); extra fields may be added. */
json_object *
dft_step_end(struct dft_step *s, const char *status)
{
	json_object *o = json_object_new_object();
	char ended[32];
	double dur = dft_monotonic() - s->t0;

	dft_iso_now(ended, sizeof(ended));
	json_object_object_add(o, "type", dft_jstr("step"));
	json_object_object_add(o, "v", dft_jint(1));
	json_object_object_add(o, "step", dft_jstr(s->name));
	json_object_object_add(o, "tool", dft_jstr(dft_progname));
	json_object_object_add(o, "started_at", dft_jstr(s->started_at));
	json_object_object_add(o, "ended_at", dft_jstr(ended));
	json_object_object_add(o, "duration_s", dft_jdouble(dur));
	json_object_object_add(o, "status", dft_jstr(status));
	return o;
}
