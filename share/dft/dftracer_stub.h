/*
 * dftracer_stub.h - a syntax-check stand-in for <dftracer/dftracer.h>.
 *
 * dft-lint puts this file first on the include path as dftracer/dftracer.h
 * and parses each instrumented source with its real compile flags.  Every
 * macro of the public dftracer C and C++ API (dftracer-format.md section 1,
 * Gen-1 to Gen-3, METADATA ones included) is declared with the same shape as
 * the real one: START declares the local `data_fn', REGION_START declares
 * `data_<name>' or `profiler_<name>', END and UPDATE use them.  So a START
 * and END in different scopes, a duplicate START or an UPDATE without START
 * fail here as they would with the real header (the empty do{}while(0) stubs
 * of the reference pipeline hid them).  The functions are only declared:
 * the file is for parsing, never for linking.  dft-lint recognises the
 * instrumentation in the syntax tree by the dft_stub_* names.
 */
#ifndef DFTRACER_DFTRACER_H
#define DFTRACER_DFTRACER_H
#define DFT_STUB_DFTRACER_H 1

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct DFTracerData {
	void *profiler;
};
void dft_stub_init(const char *log_file, const char *data_dirs,
		   int *process_id);
void dft_stub_init_no_bind(const char *log_file, const char *data_dirs,
			   int *process_id);
void dft_stub_fini(void);
struct DFTracerData *dft_stub_function_start(const char *name);
void dft_stub_function_end(struct DFTracerData *d);
struct DFTracerData *dft_stub_region_start(const char *name);
void dft_stub_region_end(struct DFTracerData *d);
void dft_stub_update_int(struct DFTracerData *d, const char *key, int v);
void dft_stub_update_str(struct DFTracerData *d, const char *key,
			 const char *v);
void dft_stub_update_int_type(struct DFTracerData *d, const char *key,
			      int v, int type);
void dft_stub_update_str_type(struct DFTracerData *d, const char *key,
			      const char *v, int type);
void dft_stub_metadata(const char *key, const char *value);
void dft_stub_app_metadata_int(const char *key, int v);
void dft_stub_app_metadata_str(const char *key, const char *v);
void dft_stub_mark_used(const char *name);
void dft_stub_entity(const char *a, const char *b, const char *c,
		     const char *d);
void dft_stub_relate(const char *a, const char *b, const char *c);
void dft_stub_finalize_region_cleanup(struct DFTracerData **d);

#ifdef __cplusplus
}
#endif

/* ---- C (dftracer-format.md 1.3) ---------------------------------------- */
#define DFTRACER_C_INIT(log_file, data_dirs, process_id) \
	dft_stub_init(log_file, data_dirs, process_id)
#define DFTRACER_C_INIT_NO_BIND(log_file, data_dirs, process_id) \
	dft_stub_init_no_bind(log_file, data_dirs, process_id)
#define DFTRACER_C_FINI() dft_stub_fini()
#define DFTRACER_C_REGION_CLEANUP
#define DFTRACER_C_FUNCTION_START() \
	struct DFTracerData *data_fn = dft_stub_function_start(__func__)
#define DFTRACER_C_FUNCTION_END() dft_stub_function_end(data_fn)
#define DFTRACER_C_REGION_START(name) \
	struct DFTracerData *data_##name = dft_stub_region_start(#name)
#define DFTRACER_C_REGION_END(name) dft_stub_region_end(data_##name)
#define DFTRACER_C_METADATA(name, key, val) \
	do { \
		struct DFTracerData *data_##name = \
			dft_stub_region_start(#name); \
		dft_stub_metadata(key, val); \
		dft_stub_region_end(data_##name); \
	} while (0)
#define DFTRACER_C_FUNCTION_UPDATE_INT(key, val) \
	dft_stub_update_int(data_fn, key, val)
#define DFTRACER_C_FUNCTION_UPDATE_STR(key, val) \
	dft_stub_update_str(data_fn, key, val)
#define DFTRACER_C_REGION_UPDATE_INT(name, key, val) \
	dft_stub_update_int(data_##name, key, val)
#define DFTRACER_C_REGION_UPDATE_STR(name, key, val) \
	dft_stub_update_str(data_##name, key, val)
#define DFTRACER_C_FUNCTION_UPDATE_INT_TYPE(key, val, type) \
	dft_stub_update_int_type(data_fn, key, val, type)
#define DFTRACER_C_FUNCTION_UPDATE_STR_TYPE(key, val, type) \
	dft_stub_update_str_type(data_fn, key, val, type)
#define DFTRACER_C_REGION_UPDATE_INT_TYPE(name, key, val, type) \
	dft_stub_update_int_type(data_##name, key, val, type)
#define DFTRACER_C_REGION_UPDATE_STR_TYPE(name, key, val, type) \
	dft_stub_update_str_type(data_##name, key, val, type)
#define DFTRACER_C_APP_METADATA_INT(key, val) \
	dft_stub_app_metadata_int(key, val)
#define DFTRACER_C_APP_METADATA_STR(key, val) \
	dft_stub_app_metadata_str(key, val)
#define DFTRACER_C_MARK_USED(name) dft_stub_mark_used(name)
#define DFTRACER_C_ENTITY(type, key, store, uri) \
	dft_stub_entity(type, key, store, uri)
#define DFTRACER_C_ENTITY_TYPE(type, role, desc) \
	dft_stub_relate(type, role, desc)
#define DFTRACER_C_ENTITY_RELATE(rel, subj, obj) \
	dft_stub_relate(rel, subj, obj)
#define DFTRACER_C_FUNCTION_RELATE(rel, entity) \
	dft_stub_relate(__func__, rel, entity)
#define DFTRACER_C_FUNCTION_USES(type, key) \
	dft_stub_relate(__func__, type, key)
#define DFTRACER_C_FUNCTION_GENERATES(type, key) \
	dft_stub_relate(__func__, type, key)
#define DFTRACER_C_REGION_RELATE(name, rel, entity) \
	dft_stub_relate(#name, rel, entity)

/* ---- C++ (dftracer-format.md 1.4) -------------------------------------- */
#ifdef __cplusplus
struct dft_stub_cpp_tracer {
	explicit dft_stub_cpp_tracer(const char *name);
	dft_stub_cpp_tracer(const char *name, const char *cat, int type = 0);
	~dft_stub_cpp_tracer();
	void update(const char *key, int v);
	void update(const char *key, const char *v);
	void update(const char *key, int v, int type);
	void update(const char *key, const char *v, int type);
	void finalize();
};
/* the class and category of dftracer's C++ API, which a C++ method's
 * START names itself with (dft-annotate) */
typedef dft_stub_cpp_tracer DFTracer;
static const char *const CPP_LOG_CATEGORY = "CPP_APP";
#define DFTRACER_CPP_INIT(log_file, data_dirs, process_id) \
	dft_stub_init(log_file, data_dirs, process_id)
#define DFTRACER_CPP_INIT_NO_BIND(log_file, data_dirs, process_id) \
	dft_stub_init_no_bind(log_file, data_dirs, process_id)
#define DFTRACER_CPP_FINI() dft_stub_fini()
#define DFTRACER_CPP_FUNCTION() \
	dft_stub_cpp_tracer profiler_dft_fn(__func__)
#define DFTRACER_CPP_REGION(name) \
	dft_stub_cpp_tracer profiler_##name(#name)
#define DFTRACER_CPP_REGION_START(name) \
	dft_stub_cpp_tracer *profiler_##name = new dft_stub_cpp_tracer(#name)
#define DFTRACER_CPP_REGION_END(name) delete profiler_##name
#define DFTRACER_CPP_METADATA(name, key, value) \
	do { \
		dft_stub_cpp_tracer profiler_##name(#name); \
		dft_stub_metadata(key, value); \
	} while (0)
#define DFTRACER_CPP_FUNCTION_UPDATE(key, val) \
	profiler_dft_fn.update(key, val)
#define DFTRACER_CPP_REGION_UPDATE(name, key, val) \
	profiler_##name.update(key, val)
#define DFTRACER_CPP_REGION_DYN_UPDATE(name, key, val) \
	profiler_##name->update(key, val)
#define DFTRACER_CPP_FUNCTION_UPDATE_TYPE(key, val, type) \
	profiler_dft_fn.update(key, val, type)
#define DFTRACER_CPP_REGION_UPDATE_TYPE(name, key, val, type) \
	profiler_##name.update(key, val, type)
#define DFTRACER_CPP_REGION_DYN_UPDATE_TYPE(name, key, val, type) \
	profiler_##name->update(key, val, type)
#define DFTRACER_CPP_APP_METADATA_INT(key, val) \
	dft_stub_app_metadata_int(key, val)
#define DFTRACER_CPP_APP_METADATA_STR(key, val) \
	dft_stub_app_metadata_str(key, val)
#define DFTRACER_CPP_MARK_USED(name) dft_stub_mark_used(name)
#define DFTRACER_CPP_ENTITY(type, key, store, uri) \
	dft_stub_entity(type, key, store, uri)
#define DFTRACER_CPP_ENTITY_TYPE(type, role, desc) \
	dft_stub_relate(type, role, desc)
#define DFTRACER_CPP_ENTITY_RELATE(rel, subj, obj) \
	dft_stub_relate(rel, subj, obj)
#define DFTRACER_CPP_FUNCTION_RELATE(rel, entity) \
	dft_stub_relate(__func__, rel, entity)
#define DFTRACER_CPP_FUNCTION_USES(type, key) \
	dft_stub_relate(__func__, type, key)
#define DFTRACER_CPP_FUNCTION_GENERATES(type, key) \
	dft_stub_relate(__func__, type, key)
#define DFTRACER_CPP_REGION_RELATE(name, rel, entity) \
	dft_stub_relate(#name, rel, entity)
#define DFTRACER_CPP_REGION_DYN_RELATE(name, rel, entity) \
	dft_stub_relate(#name, rel, entity)
#endif /* __cplusplus */

#endif /* DFTRACER_DFTRACER_H */
