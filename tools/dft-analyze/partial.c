/*
 * partial.c - --partial writes the aggregate as one "partial" record;
 * --merge (or any partial record in the input) adds it back. The record
 * holds every counter, so merging partials of disjoint inputs gives the
 * aggregate of all inputs, and the same records as one run over them.
 */
#include <string.h>

#include "analyze.h"

json_object *
partial_json(struct agg *a, const struct run_info *ri)
{
	json_object *o = json_object_new_object();
	json_object *g = json_object_new_array();
	json_object *l = json_object_new_array();
	json_object *maps = json_object_new_object();

	json_object_object_add(o, "type", dft_jstr("partial"));
	json_object_object_add(o, "v", dft_jint(14));
	json_object_object_add(o, "tool", dft_jstr("dft-analyze"));
	json_object_object_add(o, "thresholds", thresholds_json());
	json_object_object_add(o, "inputs", json_object_get(ri->inputs));
	if (ri->series != NULL)
		json_object_object_add(o, "series",
				       json_object_get(ri->series));
	for (int i = 0; i < G_NF; i++)
		json_object_array_add(g, dft_jint(a->g[i]));
	json_object_object_add(o, "g", g);
	for (int i = 0; i < L_N; i++) {
		json_object *row = json_object_new_array();

		for (int f = 0; f < LF_NF; f++)
			json_object_array_add(row, dft_jint(a->layer[i][f]));
		json_object_array_add(l, row);
	}
	json_object_object_add(o, "layers", l);
	for (int i = 0; i < M_N; i++) {
		json_object *m = json_object_new_object();
		const struct dft_tmap *t = &a->m[i];

		for (size_t j = 0; j < t->count; j++) {
			size_t kn;
			const char *k = dft_tmap_key(t, j, &kn);
			const int64_t *r = dft_tmap_value(t, j);
			json_object *row = json_object_new_array();

			for (int f = 0; f < map_defs[i].nf; f++)
				json_object_array_add(row, dft_jint(r[f]));
			/* keys never hold NUL bytes: names come from
			 * strings or decimal numbers */
			json_object_object_add(m, k, row);
			(void)kn;
		}
		json_object_object_add(maps, map_defs[i].name, m);
	}
	json_object_object_add(o, "maps", maps);
	return o;
}

static int
int_array(json_object *a, int n, int64_t *out)
{
	if (a == NULL || !json_object_is_type(a, json_type_array) ||
	    (int)json_object_array_length(a) != n)
		return -1;
	for (int i = 0; i < n; i++) {
		json_object *x = json_object_array_get_idx(a, i);

		if (!json_object_is_type(x, json_type_int))
			return -1;
		out[i] = json_object_get_int64(x);
	}
	return 0;
}

int
partial_load(struct agg *a, json_object *rec, json_object *inputs,
	     const char **why)
{
	json_object *x, *maps;
	int64_t g[G_NF];
	int64_t row[S_NF > ATTR_NF ? S_NF : ATTR_NF];

	if (dft_json_int(rec, "v", 0) != 14) {
		*why = "partial record of an unknown version";
		return -1;
	}
	if (!json_object_object_get_ex(rec, "g", &x) ||
	    int_array(x, G_NF, g) != 0) {
		*why = "partial record without a valid \"g\" array";
		return -1;
	}
	if (!json_object_object_get_ex(rec, "layers", &x) ||
	    !json_object_is_type(x, json_type_array) ||
	    json_object_array_length(x) != L_N) {
		*why = "partial record without valid \"layers\"";
		return -1;
	}
	for (int i = 0; i < L_N; i++)
		if (int_array(json_object_array_get_idx(x, i), LF_NF, row) != 0) {
			*why = "partial record with a bad layer row";
			return -1;
		}
	if (!json_object_object_get_ex(rec, "maps", &maps) ||
	    !json_object_is_type(maps, json_type_object)) {
		*why = "partial record without \"maps\"";
		return -1;
	}
	/* validated: apply */
	json_object *th;

	if (json_object_object_get_ex(rec, "thresholds", &th) &&
	    json_object_is_type(th, json_type_object)) {
		for (int i = 0; i < T_N; i++) {
			json_object *v;

			if (json_object_object_get_ex(th, thr_name[i], &v) &&
			    (json_object_is_type(v, json_type_int) ||
			     json_object_is_type(v, json_type_double)))
				thr[i] = json_object_get_double(v);
		}
	}
	for (int i = 0; i < G_NF; i++) {
		if (i == G_TS_MIN)
			a->g[i] = g[i] < a->g[i] ? g[i] : a->g[i];
		else if (i == G_TS_MAX)
			a->g[i] = g[i] > a->g[i] ? g[i] : a->g[i];
		else
			a->g[i] += g[i];
	}
	for (int i = 0; i < L_N; i++) {
		int_array(json_object_array_get_idx(x, i), LF_NF, row);
		for (int f = 0; f < LF_NF; f++)
			a->layer[i][f] += row[f];
	}
	for (int i = 0; i < M_N; i++) {
		json_object *m;
		int nf = map_defs[i].nf;

		if (!json_object_object_get_ex(maps, map_defs[i].name, &m) ||
		    !json_object_is_type(m, json_type_object))
			continue;
		json_object_object_foreach(m, k, v) {
			if (int_array(v, nf, row) != 0)
				continue;
			int64_t *d = agg_row(a, i, k, strlen(k));

			for (int f = 0; f < nf; f++) {
				if (map_defs[i].max)
					d[f] = row[f] > d[f] ? row[f] : d[f];
				else
					d[f] += row[f];
			}
		}
	}
	if (json_object_object_get_ex(rec, "inputs", &x) &&
	    json_object_is_type(x, json_type_array))
		for (size_t i = 0; i < json_object_array_length(x); i++)
			json_object_array_add(inputs, json_object_get(
				json_object_array_get_idx(x, i)));
	return 0;
}
