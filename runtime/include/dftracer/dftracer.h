/*
 * dftracer/dftracer.h - public API of the dft bundled tracer, source
 * compatible with dftracer 2.0.x: the same DFTRACER_C_* and DFTRACER_CPP_*
 * macros with the same parameters, and the C functions behind them.
 *
 * Link with -ldftracer_core.  Tracing happens only when the environment has
 * DFTRACER_ENABLE=1; otherwise every call below is a cheap no-op.
 * See dftracer-runtime(7).
 *
 * Differences from dftracer 2.0.x, all compatible:
 *  - under GCC and Clang the region handles declared by the C START macros
 *    carry __attribute__((cleanup)), so a region left without its END (an
 *    early return, a goto) is still closed at scope exit; END sets the
 *    handle to NULL, so calling END as 2.0.x requires is still correct;
 *  - the Gen-3 additions finalize_region_cleanup and
 *    DFTRACER_C_REGION_CLEANUP are provided;
 *  - an UPDATE is a call only when its region keeps arguments: the
 *    handle is not NULL (tracing on) and its profiler field is set (not
 *    a folded call of a throttled function, whose handle has it NULL);
 *    the check is inline (DFTRACER_KEEPS_ARGS), so a folded call or one
 *    with tracing off costs a test, not three calls; the field means
 *    nothing else to a program.
 */
#ifndef DFTRACER_DFTRACER_H
#define DFTRACER_DFTRACER_H

/* NULL: annotated files pass it to the INIT macros, and dftracer 2.0.x's
 * own header brings it in too, so a file with no includes still builds */
#include <stddef.h>

#define DFTRACER_RUNTIME_DFT 1

#define DF_DATA_EVENT 0
#define DF_METADATA_EVENT 1

/* Aggregation role of a metadata value (2.0.x MetadataType). */
#define MT_KEY 0
#define MT_VALUE 1
#define MT_IGNORE 2

#ifdef __cplusplus
extern "C" {
#endif

typedef unsigned long long TimeResolution;
typedef unsigned long ThreadID;
typedef unsigned long ProcessID;
typedef const char *ConstEventNameType;
typedef char *HashType;

static const char *const C_LOG_CATEGORY = "C_APP";
static const char *const CPP_LOG_CATEGORY = "CPP_APP";

struct DFTracerData {
  void *profiler;
};

void initialize_main(const char *log_file, const char *data_dirs,
                     int *process_id);
void initialize_no_bind(const char *log_file, const char *data_dirs,
                        int *process_id);
void finalize(void);

struct DFTracerData *initialize_region(const char *name, const char *cat,
                                       int event_type);
void finalize_region(struct DFTracerData *data);
void finalize_region_cleanup(struct DFTracerData **data);
void update_metadata_int(struct DFTracerData *data, const char *key,
                         int value);
void update_metadata_string(struct DFTracerData *data, const char *key,
                            const char *value);
void update_metadata_int_type(struct DFTracerData *data, const char *key,
                              int value, int type);
void update_metadata_string_type(struct DFTracerData *data, const char *key,
                                 const char *value, int type);

#ifdef __cplusplus
}
#endif

/* whether an UPDATE of region d has an effect: d keeps arguments */
#define DFTRACER_KEEPS_ARGS(d) ((d) && (d)->profiler)

#if (defined(__GNUC__) || defined(__clang__)) && !defined(DFTRACER_NO_CLEANUP)
#define DFTRACER_C_REGION_CLEANUP \
  __attribute__((cleanup(finalize_region_cleanup)))
#else
#define DFTRACER_C_REGION_CLEANUP
#endif

/* ---- C API ------------------------------------------------------------ */

#define DFTRACER_C_INIT(log_file, data_dirs, process_id) \
  initialize_main(log_file, data_dirs, process_id)
#define DFTRACER_C_INIT_NO_BIND(log_file, data_dirs, process_id) \
  initialize_no_bind(log_file, data_dirs, process_id)
#define DFTRACER_C_FINI() finalize()

#define DFTRACER_C_FUNCTION_START()                                  \
  struct DFTracerData *data_fn DFTRACER_C_REGION_CLEANUP =           \
      initialize_region(__func__, C_LOG_CATEGORY, DF_DATA_EVENT)
#define DFTRACER_C_FUNCTION_END() \
  (finalize_region(data_fn), data_fn = (struct DFTracerData *)0)

#define DFTRACER_C_REGION_START(name)                                 \
  struct DFTracerData *data_##name DFTRACER_C_REGION_CLEANUP =        \
      initialize_region(#name, C_LOG_CATEGORY, DF_DATA_EVENT)
#define DFTRACER_C_REGION_END(name) \
  (finalize_region(data_##name), data_##name = (struct DFTracerData *)0)

#define DFTRACER_C_METADATA(name, key, val)                            \
  do {                                                                \
    struct DFTracerData *data_##name =                                \
        initialize_region(key, val, DF_METADATA_EVENT);               \
    finalize_region(data_##name);                                     \
  } while (0)

#define DFTRACER_C_FUNCTION_UPDATE_INT(key, val)                  \
  (DFTRACER_KEEPS_ARGS(data_fn) ? update_metadata_int(data_fn, key, val) \
                                : (void)0)
#define DFTRACER_C_FUNCTION_UPDATE_STR(key, val)                        \
  (DFTRACER_KEEPS_ARGS(data_fn) ? update_metadata_string(data_fn, key, val) \
                                : (void)0)
#define DFTRACER_C_FUNCTION_UPDATE_INT_TYPE(key, val, type)              \
  (DFTRACER_KEEPS_ARGS(data_fn)                                          \
       ? update_metadata_int_type(data_fn, key, val, type)               \
       : (void)0)
#define DFTRACER_C_FUNCTION_UPDATE_STR_TYPE(key, val, type)              \
  (DFTRACER_KEEPS_ARGS(data_fn)                                          \
       ? update_metadata_string_type(data_fn, key, val, type)            \
       : (void)0)
#define DFTRACER_C_REGION_UPDATE_INT(name, key, val)                     \
  (DFTRACER_KEEPS_ARGS(data_##name)                                      \
       ? update_metadata_int(data_##name, key, val)                      \
       : (void)0)
#define DFTRACER_C_REGION_UPDATE_STR(name, key, val)                     \
  (DFTRACER_KEEPS_ARGS(data_##name)                                      \
       ? update_metadata_string(data_##name, key, val)                   \
       : (void)0)
#define DFTRACER_C_REGION_UPDATE_INT_TYPE(name, key, val, type)          \
  (DFTRACER_KEEPS_ARGS(data_##name)                                      \
       ? update_metadata_int_type(data_##name, key, val, type)           \
       : (void)0)
#define DFTRACER_C_REGION_UPDATE_STR_TYPE(name, key, val, type)          \
  (DFTRACER_KEEPS_ARGS(data_##name)                                      \
       ? update_metadata_string_type(data_##name, key, val, type)        \
       : (void)0)

/* ---- C++ API ---------------------------------------------------------- */

#ifdef __cplusplus
class DFTracer {
 public:
  DFTracer(const char *name, const char *cat, int event_type = DF_DATA_EVENT)
      : data_(initialize_region(name, cat, event_type)) {}
  ~DFTracer() { finalize(); }
  void update(const char *key, int value) {
    if (DFTRACER_KEEPS_ARGS(data_)) update_metadata_int(data_, key, value);
  }
  void update(const char *key, const char *value) {
    if (DFTRACER_KEEPS_ARGS(data_))
      update_metadata_string(data_, key, value);
  }
  void update(const char *key, int value, int type) {
    if (DFTRACER_KEEPS_ARGS(data_))
      update_metadata_int_type(data_, key, value, type);
  }
  void update(const char *key, const char *value, int type) {
    if (DFTRACER_KEEPS_ARGS(data_))
      update_metadata_string_type(data_, key, value, type);
  }
  void finalize() {
    if (data_) finalize_region(data_);
    data_ = 0;
  }

 private:
  DFTracer(const DFTracer &);
  DFTracer &operator=(const DFTracer &);
  struct DFTracerData *data_;
};

#define DFTRACER_CPP_INIT(log_file, data_dirs, process_id) \
  initialize_main(log_file, data_dirs, process_id)
#define DFTRACER_CPP_INIT_NO_BIND(log_file, data_dirs, process_id) \
  initialize_no_bind(log_file, data_dirs, process_id)
#define DFTRACER_CPP_FINI() finalize()

#define DFTRACER_CPP_FUNCTION() \
  DFTracer profiler_dft_fn(__FUNCTION__, CPP_LOG_CATEGORY, DF_DATA_EVENT)
#define DFTRACER_CPP_REGION(name) \
  DFTracer profiler_##name(#name, CPP_LOG_CATEGORY, DF_DATA_EVENT)
#define DFTRACER_CPP_REGION_START(name) \
  DFTracer *profiler_##name =           \
      new DFTracer(#name, CPP_LOG_CATEGORY, DF_DATA_EVENT)
#define DFTRACER_CPP_REGION_END(name) delete profiler_##name

#define DFTRACER_CPP_FUNCTION_UPDATE(key, val) \
  profiler_dft_fn.update(key, val)
#define DFTRACER_CPP_FUNCTION_UPDATE_TYPE(key, val, type) \
  profiler_dft_fn.update(key, val, type)
#define DFTRACER_CPP_REGION_UPDATE(name, key, val) \
  profiler_##name.update(key, val)
#define DFTRACER_CPP_REGION_UPDATE_TYPE(name, key, val, type) \
  profiler_##name.update(key, val, type)
#define DFTRACER_CPP_REGION_DYN_UPDATE(name, key, val) \
  profiler_##name->update(key, val)
#define DFTRACER_CPP_REGION_DYN_UPDATE_TYPE(name, key, val, type) \
  profiler_##name->update(key, val, type)

#define DFTRACER_CPP_METADATA(name, key, val)                       \
  do {                                                              \
    DFTracer profiler_##name(key, val, DF_METADATA_EVENT);          \
  } while (0)
#endif /* __cplusplus */

#endif /* DFTRACER_DFTRACER_H */
