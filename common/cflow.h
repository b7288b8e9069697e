/*
 * cflow.h - which calls do not return and which statements cannot
 * complete, from libclang's syntax tree (common/cflow.c).  One notion for
 * dft-funcs (the exits and falls_through it gives dft-annotate) and
 * dft-lint (its path walk), so the two never disagree.  Kept out of dft.h
 * because it needs <clang-c/Index.h>.
 *
 * A call does not return when its callee is
 *   - a global or std function of the exit family (exit, _exit, _Exit,
 *     quick_exit, abort), of the longjmp family (longjmp, siglongjmp,
 *     _longjmp, __longjmp_chk), or of the known libc list (pthread_exit,
 *     thrd_exit, err, errx, verr, verrx, __builtin_abort, __builtin_exit);
 *   - declared _Noreturn, [[noreturn]] or __attribute__((noreturn));
 *   - defined in the translation unit with no return statement and a body
 *     that cannot complete (every path ends in such a call or an infinite
 *     loop);
 *   - or one of the process deaths that need no END (__assert_fail,
 *     __builtin_trap, __builtin_unreachable, __stack_chk_fail,
 *     __cxa_throw, ...).
 * A statement cannot complete when control cannot go on to the statement
 * after it: return, goto, throw, a call that does not return, a block or
 * label whose last statement cannot complete, an if whose both branches
 * cannot, an infinite loop (no condition, or a constant true one) without
 * a break or a goto out of it, a do loop whose body cannot complete and
 * has no break or continue.
 */
#ifndef DFT_CFLOW_H
#define DFT_CFLOW_H

#include <clang-c/Index.h>

struct dft_cflow;

/* A context for one translation unit (it caches verdicts); free it with
 * dft_cflow_free() before the unit is disposed. */
struct dft_cflow *dft_cflow_new(CXTranslationUnit tu);
void dft_cflow_free(struct dft_cflow *c);

/*
 * NULL when the call returns (or may), else the kind of its end: the
 * callee's name for the exit family ("exit", "_exit", "_Exit",
 * "quick_exit", "abort"), "longjmp", "noreturn" (known list, attribute,
 * or every path of its definition), or "die" (a process death that needs
 * no END).  The string is static.
 */
const char *dft_cflow_call(struct dft_cflow *c, CXCursor call);

/* The direct children of c: k->v[0 .. k->n); the caller frees k->v. */
struct dft_kids {
	CXCursor *v;
	size_t n, cap;
};
void dft_cflow_kids(CXCursor c, struct dft_kids *k);

/* The text of s ("" when none), which is disposed; caller frees. */
char *dft_cflow_string(CXString s);
/* The spelling of c (dft_cflow_string); caller frees. */
char *dft_cflow_spelling(CXCursor c);

/* 1 when a cursor of kind k can be a function's definition: a function,
 * method, constructor, destructor, conversion or function template. */
int dft_cflow_is_function(enum CXCursorKind k);
/* 1 when a top-level cursor of kind k can hold function definitions:
 * namespace, extern "C", class, struct, union, class template and its
 * partial specialization. */
int dft_cflow_holds_functions(enum CXCursorKind k);

/* c without the implicit casts, parentheses and casts around it. */
CXCursor dft_cflow_unwrap(CXCursor c);

/* 1 when declaration d is at global scope, in std (or __gnu_cxx) or in
 * extern "C": where the C library's names are. */
int dft_cflow_global(CXCursor d);

/* 1 when stmt (a statement or expression) cannot complete. */
int dft_cflow_cannot_complete(struct dft_cflow *c, CXCursor stmt);

/* 1 when a while, for or do loop has no condition or a constant true
 * one: it ends only by break, goto, return or a call that does not
 * return. */
int dft_cflow_loop_forever(struct dft_cflow *c, CXCursor loop);

/* 1 when loop is a do statement whose condition is a constant false
 * ("do { ... } while (0)", the statement-like macro idiom): its body runs
 * once, so it is no loop. */
int dft_cflow_runs_once(CXCursor loop);

#endif /* DFT_CFLOW_H */
