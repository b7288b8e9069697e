/*
 * plan.c - dft-papers --plan: the next step of dft-pipeline's optimization
 * loop, from the proposals of the accepted configuration.
 *
 * Without --rewrites (the environment actions): the L2 and L3 proposals
 * whose strategy was not tried yet, and whose action (its env, wrapper,
 * before, hint_file and rewrite) no tried strategy had, one per strategy
 * in strategy order, one per action.  Each is applied, not applicable
 * (a requirement unmet, a privilege needed, a placeholder that cannot be
 * filled in, its before command failed) or deferred (an environment
 * variable or the wrapper is taken by an action applied before it in
 * this iteration).  Writes DIR/applied.ndjson, not_applicable.ndjson,
 * deferred.ndjson, env (the exports so far, then the applied actions'),
 * wrapper (a command prefix), the hint files, before_ID.sh of each applied
 * action with a before command, and DIR/before listing those scripts
 * ("ID<TAB>SCRIPT", in order) for the pipeline to run.
 *
 * With --rewrites (the application's L1 rewrites): the L1 proposals with
 * a rewrite not tried yet, one per strategy, LOW risk first; the first
 * whose requirements are met goes to DIR/applied.ndjson and DIR/rewrite
 * ("ID<TAB>REWRITE<TAB>CLASS"), the ones before it to not_applicable.ndjson.
 *
 * With --rollback (after a rolled-back iteration): the rollback commands
 * of the applied actions given, as DIR/rollback_K.sh listed in DIR/rollback.
 *
 * Either way --failed names the actions whose commands failed when the
 * pipeline ran them (a before script, a rewrite that changed nothing or
 * does not build): they are not applicable, and planning again with them
 * gives the same decisions for the actions before them.  Standard output:
 * "not applicable here: ID (REASON)" for each, in order.
 *
 * It does not run anything: the pipeline runs the scripts and rewrites.
 * The requirements are require.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "papers.h"

struct plan {
	const struct plan_opts *o;
	json_object *all;	/* the operands' proposals, in order */
	json_object *earlier;	/* the earlier configurations' proposals */
	char **tried;
	size_t ntried;
	char **failed, **failed_why;
	size_t nfailed;
	int status;
};

static char **
push(char **v, size_t *n, char *s)
{
	v = dft_xreallocarray(v, *n + 1, sizeof(*v));
	v[(*n)++] = s;
	return v;
}

static ssize_t
find(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return (ssize_t)i;
	return -1;
}

static json_object *
member(json_object *o, const char *key)
{
	json_object *v = NULL;

	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, key, &v))
		return NULL;
	return v;
}

/* null and false are no value (jq's "//") */
static json_object *
value(json_object *o, const char *key)
{
	json_object *v = member(o, key);

	if (v != NULL && json_object_is_type(v, json_type_boolean) &&
	    !json_object_get_boolean(v))
		return NULL;
	return v;
}

/* A list element as jq's join writes it: null empty, a string as it is,
 * anything else as JSON (caller frees). */
static char *
word(json_object *v)
{
	if (v == NULL)
		return dft_xstrdup("");
	if (json_object_is_type(v, json_type_string))
		return dft_xstrdup(json_object_get_string(v));
	return dft_xstrdup(json_object_to_json_string_ext(v,
	    JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* The strategy of a proposal, else its id; NULL when neither. */
static const char *
strategy(json_object *p)
{
	json_object *v = value(p, "strategy");

	if (v == NULL)
		v = value(p, "id");
	return v != NULL ? json_object_get_string(v) : NULL;
}

/* the id as jq -r wrote it */
static const char *
id_text(json_object *p)
{
	return strategy(p) != NULL ? strategy(p) : "null";
}

static int
tried(const struct plan *pl, json_object *p)
{
	const char *s = strategy(p);

	return find(pl->tried, pl->ntried, s != NULL ? s : "") >= 0;
}

/* What an action does, as one text: two proposals with the same key are
 * the same action under two names (caller frees). */
static char *
action_key(json_object *p)
{
	static const char *const keys[] = {
		"env", "wrapper", "before", "hint_file", "rewrite",
	};
	json_object *a = member(p, "action"), *k = json_object_new_object();
	char *s;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_object *v = member(a, keys[i]);

		json_object_object_add(k, keys[i],
				       v != NULL ? json_object_get(v) : NULL);
	}
	s = word(k);
	json_object_put(k);
	return s;
}

static int
is_proposal(json_object *r)
{
	return strcmp(dft_record_type(r), "proposal") == 0 &&
	       member(r, "action") != NULL &&
	       !json_object_is_type(member(r, "action"), json_type_null);
}

static int
is_rewrite(json_object *r)
{
	json_object *rw = member(member(r, "action"), "rewrite");

	return is_proposal(r) &&
	       strcmp(dft_json_str(r, "level", ""), "L1") == 0 &&
	       rw != NULL && !json_object_is_type(rw, json_type_null);
}

/* The proposals of one file (keep() true) appended to into. */
static void
read_proposals(struct plan *pl, const char *path, json_object *into,
	       int (*keep)(json_object *))
{
	struct dft_reader r;
	json_object *rec;
	int rc;

	if (dft_reader_open(&r, path) != 0) {
		dft_warn("cannot read '%s':", path);
		pl->status = dft_worst(pl->status, DFT_EXIT_DATA);
		return;
	}
	while ((rc = dft_reader_next(&r, &rec)) == 1) {
		if (keep(rec)) {
			dft_jq_numbers(rec);
			json_object_array_add(into, rec);
		} else {
			json_object_put(rec);
		}
	}
	if (rc < 0 || r.bad > 0)
		pl->status = dft_worst(pl->status, DFT_EXIT_DATA);
	dft_reader_release(&r);
}

/* The lines of a file, without their newlines; a missing file has none. */
static char **
read_lines(const char *path, size_t *n)
{
	char **v = NULL, *s, *p;
	size_t len;

	*n = 0;
	if (path == NULL)
		return NULL;
	s = dft_read_file(path, &len);
	if (s == NULL) {
		if (dft_exists(path))
			dft_die("cannot read '%s':", path);
		return NULL;
	}
	for (p = s; *p != '\0';) {
		size_t m = strcspn(p, "\n");

		v = push(v, n, dft_xasprintf("%.*s", (int)m, p));
		p += m;
		if (*p == '\n')
			p++;
	}
	free(s);
	return v;
}

/* ---- text as the shell had it ------------------------------------------ */

static void
chomp(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && s[n - 1] == '\n')
		s[--n] = '\0';
}

/* s with every "from" replaced by "to"; frees s. */
static char *
replace(char *s, const char *from, const char *to)
{
	struct dft_buf b;
	size_t n = strlen(from);
	const char *p = s, *q;

	dft_buf_init(&b);
	while ((q = strstr(p, from)) != NULL) {
		dft_buf_add(&b, p, (size_t)(q - p));
		dft_buf_adds(&b, to);
		p = q + n;
	}
	dft_buf_adds(&b, p);
	free(s);
	return dft_buf_detach(&b);
}

/*
 * text with its placeholders filled in, one after the other; NULL when
 * one is left over: "{", a lower-case letter or "_", and later a "}"
 * (caller frees).
 */
static char *
fill(const struct plan *pl, const char *text, const char *hint_file)
{
	const struct facts *f = &pl->o->facts;
	const char *const names[] = {
		"{data_dir}", "{hint_file}", "{local_dir}",
		"{physical_cores}", "{tune_lib}",
	};
	const char *with[] = {
		fact(f, F_DATA_DIR), hint_file, fact(f, F_LOCAL_DIR),
		fact(f, F_PHYSICAL_CORES), fact(f, F_TUNE_LIB),
	};
	char *s = dft_xstrdup(text);

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		s = replace(s, names[i], with[i]);
	chomp(s);
	for (const char *p = strchr(s, '{'); p != NULL; p = strchr(p + 1, '{'))
		if (((p[1] >= 'a' && p[1] <= 'z') || p[1] == '_') &&
		    strchr(p + 2, '}') != NULL) {
			free(s);
			return NULL;
		}
	return s;
}

/* One shell word: 'text', a quote in it as '\'' (trailing newlines go,
 * as they went through $(...)). */
static void
add_quoted(struct dft_buf *b, const char *text)
{
	size_t n = strlen(text);

	while (n > 0 && text[n - 1] == '\n')
		n--;
	dft_buf_addc(b, '\'');
	for (size_t i = 0; i < n; i++)
		if (text[i] == '\'')
			dft_buf_adds(b, "'\\''");
		else
			dft_buf_addc(b, text[i]);
	dft_buf_addc(b, '\'');
}

static int
env_name(const char *k)
{
	if (*k == '\0')
		return 0;
	for (; *k != '\0'; k++)
		if (!((*k >= 'A' && *k <= 'Z') || (*k >= 'a' && *k <= 'z') ||
		      (*k >= '0' && *k <= '9') || *k == '_'))
			return 0;
	return 1;
}

/* The words of a list (a string is one word), as they come back from
 * $(...) through read: trailing empty words go, but one stays when the
 * list joined is not empty. */
static char **
words_of(json_object *v, size_t *n, int keep_trailing)
{
	char **w = NULL;
	int any = 0;

	*n = 0;
	if (v == NULL || json_object_is_type(v, json_type_null))
		return NULL;
	if (!json_object_is_type(v, json_type_array)) {
		w = push(w, n, word(v));
		any = **w != '\0';
	} else {
		for (size_t i = 0; i < json_object_array_length(v); i++)
			w = push(w, n, word(json_object_array_get_idx(v, i)));
		any = *n > 1 || (*n == 1 && *w[0] != '\0');
	}
	if (!any) {
		while (*n > 0)
			free(w[--(*n)]);
		free(w);
		return NULL;
	}
	while (!keep_trailing && *n > 1 && *w[*n - 1] == '\0')
		free(w[--(*n)]);
	return w;
}

/* ---- the records --------------------------------------------------------- */

struct out {
	FILE *applied, *na, *deferred;
	struct dft_buf env, wrapper, before;
	struct dft_buf tried, tried_na, change;
	char **vars;
	size_t nvars;
};

static FILE *
create(const struct plan *pl, const char *name)
{
	char *p = dft_path_join(pl->o->run_dir, name);
	FILE *fp = fopen(p, "w");

	if (fp == NULL)
		dft_die("cannot create '%s':", p);
	free(p);
	return fp;
}

static void
finish(const struct plan *pl, FILE *fp, const char *name)
{
	if (fflush(fp) != 0 || ferror(fp) || fclose(fp) != 0)
		dft_die("cannot write '%s/%s':", pl->o->run_dir, name);
}

static void
save(const struct plan *pl, const char *name, const char *s, size_t n)
{
	FILE *fp = create(pl, name);

	if (n > 0 && fwrite(s, 1, n, fp) != n)
		dft_die("cannot write '%s/%s':", pl->o->run_dir, name);
	finish(pl, fp, name);
}

static json_object *
copy(json_object *p, const char *key)
{
	json_object *v = member(p, key);

	return v != NULL ? json_object_get(v) : NULL;
}

/* The applied record; found: what its requirements found (an array,
 * or NULL: nothing to say) */
static void
record_applied(FILE *fp, json_object *p, json_object *found)
{
	json_object *r = json_object_new_object();

	json_object_object_add(r, "id", dft_jstr(strategy(p)));
	json_object_object_add(r, "level", copy(p, "level"));
	json_object_object_add(r, "bottleneck", copy(p, "metric"));
	json_object_object_add(r, "change", copy(p, "change"));
	json_object_object_add(r, "action", copy(p, "action"));
	if (found != NULL)
		json_object_object_add(r, "found", found);
	dft_emit_put(fp, r);
}

/* What the met requirements of an applied proposal found, each also said
 * on standard output ("requirement met here: ID (FOUND)"); NULL when none
 * has anything to say. */
static json_object *
found_of(const struct plan *pl, json_object *p)
{
	size_t n;
	char **w = words_of(member(member(p, "action"), "requires"), &n, 1);
	json_object *a = NULL;

	for (size_t i = 0; i < n; i++) {
		char *s = *w[i] != '\0' ?
			  requirement_found(&pl->o->facts, w[i]) : NULL;

		if (s == NULL)
			continue;
		if (a == NULL)
			a = json_object_new_array();
		json_object_array_add(a, dft_jstr(s));
		if (printf("requirement met here: %s (%s)\n", id_text(p), s) <
		    0)
			dft_die("write error:");
		free(s);
	}
	strs_free(w, n);
	return a;
}

static void
record_na(FILE *fp, json_object *p, const char *why)
{
	json_object *r = json_object_new_object();

	json_object_object_add(r, "id", dft_jstr(strategy(p)));
	json_object_object_add(r, "level", copy(p, "level"));
	json_object_object_add(r, "reason", dft_jstr(why));
	dft_emit_put(fp, r);
	if (printf("not applicable here: %s (%s)\n", id_text(p), why) < 0)
		dft_die("write error:");
}

/* The first requirement of a proposal this machine and application do
 * not meet, with why (caller frees); NULL when all are met. */
static char *
unmet(const struct plan *pl, json_object *p)
{
	size_t n;
	char **w = words_of(member(member(p, "action"), "requires"), &n, 1);
	char *why = NULL;

	for (size_t i = 0; i < n && why == NULL; i++)
		if (*w[i] != '\0')
			why = requirement_unmet(&pl->o->facts, w[i]);
	strs_free(w, n);
	return why;
}

/* why a --failed action is not applicable; NULL when it did not fail */
static char *
failed(const struct plan *pl, json_object *p, const char *cmd)
{
	const char *s = strategy(p);
	ssize_t i = find(pl->failed, pl->nfailed, s != NULL ? s : "");

	if (i < 0)
		return NULL;
	if (pl->failed_why[i] != NULL)
		return dft_xstrdup(pl->failed_why[i]);
	return dft_xasprintf("the command failed here:%s", cmd);
}

/* ---- environment actions --------------------------------------------------- */

/* The exports of an action's env, appended to b; 1 when a placeholder
 * cannot be filled in. */
static int
exports(const struct plan *pl, json_object *env, const char *hint,
	struct dft_buf *b)
{
	int unfilled = 0;

	if (!json_object_is_type(env, json_type_object))
		return 0;
	json_object_object_foreach(env, k, v) {
		char *raw, *val;

		if (!env_name(k))
			continue;
		/* as jq's string interpolation writes it */
		raw = v != NULL ? word(v) : dft_xstrdup("null");
		val = fill(pl, raw, hint);
		free(raw);
		if (val == NULL) {
			unfilled = 1;
			continue;
		}
		if (strcmp(k, "LD_PRELOAD") == 0) {
			/* in front of what is preloaded already (the
			 * tracer sees the calls as they leave it), once */
			dft_buf_adds(b, "case \":${LD_PRELOAD:-}:\" in *:");
			add_quoted(b, val);
			dft_buf_adds(b, ":*) ;; *) LD_PRELOAD=");
			add_quoted(b, val);
			dft_buf_adds(b, "${LD_PRELOAD:+:$LD_PRELOAD}; export "
				     "LD_PRELOAD ;; esac\n");
		} else {
			dft_buf_addf(b, "export %s=", k);
			add_quoted(b, val);
			dft_buf_addc(b, '\n');
		}
		free(val);
	}
	return unfilled;
}

/* 1 when an applied action took one of env's variables. */
static int
var_taken(const struct out *out, json_object *env)
{
	if (!json_object_is_type(env, json_type_object))
		return 0;
	json_object_object_foreach(env, k, v) {
		(void)v;
		if (find(out->vars, out->nvars, k) >= 0)
			return 1;
	}
	return 0;
}

/* The before script of an action written into DIR: its command with the
 * placeholders filled in, after the environment of the build.  1 written,
 * with *cmd the command (caller frees); 0 no before command; -1 a
 * placeholder cannot be filled in. */
static int
before_script(struct plan *pl, json_object *p, const char *hint, char **cmd)
{
	const struct facts *f = &pl->o->facts;
	size_t n;
	char **w = words_of(member(member(p, "action"), "before"), &n, 0);
	struct dft_buf b, sc;
	char *name;

	*cmd = NULL;
	if (w == NULL)
		return 0;
	dft_buf_init(&b);
	for (size_t i = 0; i < n; i++) {
		char *v = fill(pl, w[i], hint);

		if (v == NULL) {
			strs_free(w, n);
			dft_buf_release(&b);
			return -1;
		}
		dft_buf_addc(&b, ' ');
		add_quoted(&b, v);
		free(v);
	}
	strs_free(w, n);
	*cmd = dft_buf_detach(&b);
	dft_buf_init(&sc);
	dft_buf_adds(&sc, "#!/bin/sh\n. ");
	add_quoted(&sc, fact(f, F_ENV_SCRIPT));
	dft_buf_adds(&sc, "\ncd ");
	add_quoted(&sc, fact(f, F_WORK_DIR));
	dft_buf_addf(&sc, "\n%s\n", *cmd);
	name = dft_xasprintf("before_%s.sh", strategy(p) != NULL ?
			     strategy(p) : "");
	save(pl, name, sc.s, sc.len);
	free(name);
	dft_buf_release(&sc);
	return 1;
}

/* The hint file of an action, written into DIR (caller frees the path);
 * NULL when it has none. */
static char *
hint_file(const struct plan *pl, json_object *p)
{
	json_object *h = member(member(p, "action"), "hint_file");
	json_object *c = value(h, "content");
	char *name = word(value(h, "name")), *path, *text;

	if (*name == '\0') {
		free(name);
		return NULL;
	}
	for (char *q = name; *q != '\0'; q++)
		if (!((*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z') ||
		      (*q >= '0' && *q <= '9') || *q == '_' || *q == '.' ||
		      *q == '-'))
			*q = '_';
	text = word(c);
	save(pl, name, text, strlen(text));
	path = dft_path_join(pl->o->run_dir, name);
	free(text);
	free(name);
	return path;
}

/* One action of the iteration: applied, deferred or not applicable. */
static void
decide(struct plan *pl, struct out *out, json_object *p)
{
	json_object *a = member(p, "action");
	json_object *env = value(a, "env");
	size_t nwrap;
	char **wrap = words_of(value(a, "wrapper"), &nwrap, 1);
	char *why = unmet(pl, p), *priv = word(value(a, "privilege"));
	char *hint = NULL, *cmd = NULL;
	struct dft_buf ex;

	dft_buf_init(&ex);
	if (json_object_is_type(value(a, "privilege"), json_type_null) ||
	    value(a, "privilege") == NULL) {
		free(priv);
		priv = dft_xstrdup("none");
	}
	if (why == NULL && strcmp(priv, "none") != 0 &&
	    strcmp(priv, "owner of the directory") != 0 && *priv != '\0')
		why = dft_xasprintf("needs %s: listed for the administrator, "
				    "not applied", priv);
	if (why == NULL && ((wrap != NULL && out->wrapper.len > 0) ||
			    var_taken(out, env))) {
		dft_emit(out->deferred, p);
		goto done;
	}
	if (why == NULL)
		hint = hint_file(pl, p);
	if (why == NULL && exports(pl, env, hint != NULL ? hint : "", &ex))
		why = dft_xstrdup("a placeholder of the action cannot be "
				  "filled in here");
	if (why == NULL) {
		int rc = before_script(pl, p, hint != NULL ? hint : "", &cmd);

		if (rc < 0)
			why = dft_xstrdup("a placeholder of the action cannot "
					  "be filled in here");
		else if (rc > 0 && (why = failed(pl, p, cmd)) == NULL)
			dft_buf_addf(&out->before, "%s\t%s/before_%s.sh\n",
				     strategy(p) != NULL ? strategy(p) : "",
				     pl->o->run_dir, strategy(p) != NULL ?
				     strategy(p) : "");
	}
	if (why != NULL) {
		record_na(out->na, p, why);
		dft_buf_addf(&out->tried_na, "%s\n", id_text(p));
		goto done;
	}
	if (ex.len > 0)
		dft_buf_add(&out->env, ex.s, ex.len);
	if (json_object_is_type(env, json_type_object)) {
		json_object_object_foreach(env, k, v) {
			(void)v;
			out->vars = push(out->vars, &out->nvars,
					 dft_xstrdup(k));
		}
	}
	for (size_t i = 0; i < nwrap; i++) {
		add_quoted(&out->wrapper, wrap[i]);
		dft_buf_addc(&out->wrapper, ' ');
	}
	record_applied(out->applied, p, found_of(pl, p));
	dft_buf_addf(&out->tried, "%s\n", id_text(p));
	{
		char *lv = word(member(p, "level"));

		dft_buf_addf(&out->change, "%s%s %s", out->change.len > 0 ?
			     ", " : "", member(p, "level") != NULL ? lv :
			     "null", id_text(p));
		free(lv);
	}
done:
	strs_free(wrap, nwrap);
	dft_buf_release(&ex);
	free(why);
	free(priv);
	free(hint);
	free(cmd);
}

struct ranked {
	json_object *p;
	size_t order;
};

static int
same_strategy(json_object *x, json_object *y)
{
	const char *a = strategy(x), *b = strategy(y);

	return (a == NULL && b == NULL) ||
	       (a != NULL && b != NULL && strcmp(a, b) == 0);
}

/* jq's order of the strategies: none first, then by their text; stable */
static int
by_strategy(const void *x, const void *y)
{
	const struct ranked *a = x, *b = y;
	const char *sa = strategy(a->p), *sb = strategy(b->p);
	int r;

	if (sa == NULL || sb == NULL)
		r = (sa != NULL) - (sb != NULL);
	else
		r = strcmp(sa, sb);
	if (r == 0)
		r = (a->order > b->order) - (a->order < b->order);
	return r;
}

/* The untried environment actions, in the order they are tried. */
static size_t
untried_actions(struct plan *pl, json_object ***out)
{
	char **done = NULL, **keys = NULL;
	size_t ndone = 0, nkeys = 0, n = 0, m = 0;
	struct ranked *c = NULL;
	json_object **u, *lists[2] = { pl->earlier, pl->all };

	/* an action tried once, under any name, is not tried again */
	for (int l = 0; l < 2; l++)
		for (size_t i = 0; i < json_object_array_length(lists[l]); i++) {
			json_object *p = json_object_array_get_idx(lists[l], i);

			if (tried(pl, p))
				done = push(done, &ndone, action_key(p));
		}
	for (size_t i = 0; i < json_object_array_length(pl->all); i++) {
		json_object *p = json_object_array_get_idx(pl->all, i);
		const char *lv = dft_json_str(p, "level", "");
		char *k;

		if ((strcmp(lv, "L2") != 0 && strcmp(lv, "L3") != 0) ||
		    tried(pl, p))
			continue;
		k = action_key(p);
		if (find(done, ndone, k) < 0) {
			c = dft_xreallocarray(c, n + 1, sizeof(*c));
			c[n].p = p;
			c[n++].order = i;
		}
		free(k);
	}
	if (n > 0)
		qsort(c, n, sizeof(*c), by_strategy);
	/* the first of each strategy, then the first of each action */
	u = dft_xreallocarray(NULL, n + 1, sizeof(*u));
	for (size_t i = 0; i < n; i++) {
		char *k;

		if (i > 0 && same_strategy(c[i - 1].p, c[i].p))
			continue;
		k = action_key(c[i].p);
		if (find(keys, nkeys, k) >= 0) {
			free(k);
			continue;
		}
		keys = push(keys, &nkeys, k);
		u[m++] = c[i].p;
	}
	free(c);
	strs_free(done, ndone);
	strs_free(keys, nkeys);
	*out = u;
	return m;
}

static void
plan_actions(struct plan *pl)
{
	struct out out;
	json_object **c;
	size_t n = untried_actions(pl, &c);

	memset(&out, 0, sizeof(out));
	out.applied = create(pl, "applied.ndjson");
	out.na = create(pl, "not_applicable.ndjson");
	out.deferred = create(pl, "deferred.ndjson");
	dft_buf_init(&out.env);
	dft_buf_init(&out.wrapper);
	dft_buf_init(&out.before);
	dft_buf_init(&out.tried);
	dft_buf_init(&out.tried_na);
	dft_buf_init(&out.change);
	{
		FILE *fp = create(pl, "actions.ndjson");

		for (size_t i = 0; i < n; i++)
			dft_emit(fp, c[i]);
		finish(pl, fp, "actions.ndjson");
	}
	if (pl->o->env != NULL) {
		size_t len;
		char *s = dft_read_file(pl->o->env, &len);

		if (s == NULL)
			dft_die("cannot read '%s':", pl->o->env);
		dft_buf_add(&out.env, s, len);
		free(s);
	}
	for (size_t i = 0; i < n; i++)
		decide(pl, &out, c[i]);
	finish(pl, out.applied, "applied.ndjson");
	finish(pl, out.na, "not_applicable.ndjson");
	finish(pl, out.deferred, "deferred.ndjson");
	save(pl, "env", out.env.s, out.env.len);
	save(pl, "wrapper", out.wrapper.s, out.wrapper.len);
	save(pl, "before", out.before.s, out.before.len);
	if (out.tried_na.len > 0)
		dft_buf_add(&out.tried, out.tried_na.s, out.tried_na.len);
	save(pl, "tried", out.tried.s, out.tried.len);
	if (out.change.len > 0)
		dft_buf_addc(&out.change, '\n');
	save(pl, "change", out.change.s, out.change.len);
	dft_buf_release(&out.tried);
	dft_buf_release(&out.tried_na);
	dft_buf_release(&out.change);
	dft_buf_release(&out.env);
	dft_buf_release(&out.wrapper);
	dft_buf_release(&out.before);
	strs_free(out.vars, out.nvars);
	free(c);
}

/* ---- L1 rewrites ----------------------------------------------------------- */

static int
risk_rank(json_object *p)
{
	const char *r = dft_json_str(p, "risk", "");

	return strcmp(r, "LOW") == 0 ? 0 : strcmp(r, "MEDIUM") == 0 ? 1 : 2;
}

static void
plan_rewrites(struct plan *pl)
{
	FILE *applied = create(pl, "applied.ndjson");
	FILE *na = create(pl, "not_applicable.ndjson");
	json_object **c = NULL;
	size_t n = 0;
	struct dft_buf next, ids;

	dft_buf_init(&ids);
	/* one per strategy (the first), then LOW risk first, the others
	 * in their order */
	for (size_t i = 0; i < json_object_array_length(pl->all); i++) {
		json_object *p = json_object_array_get_idx(pl->all, i);
		int dup = 0;

		if (tried(pl, p))
			continue;
		for (size_t j = 0; j < n && !dup; j++)
			dup = same_strategy(c[j], p);
		if (dup)
			continue;
		c = dft_xreallocarray(c, n + 1, sizeof(*c));
		c[n++] = p;
	}
	for (int rank = 0; rank < 3; rank++)
		for (size_t i = 0; i < n; i++) {
			json_object *p = c[i];
			char *why;

			if (p == NULL || risk_rank(p) != rank)
				continue;
			c[i] = NULL;
			dft_buf_addf(&ids, "%s\n", id_text(p));
			why = failed(pl, p, "");
			if (why == NULL)
				why = unmet(pl, p);
			if (why != NULL) {
				record_na(na, p, why);
				free(why);
				continue;
			}
			record_applied(applied, p, found_of(pl, p));
			dft_buf_init(&next);
			dft_buf_addf(&next, "%s\t%s\t%s\n",
				     strategy(p) != NULL ? strategy(p) : "",
				     json_object_get_string(member(member(p,
				     "action"), "rewrite")),
				     dft_json_str(p, "class", ""));
			save(pl, "rewrite", next.s, next.len);
			dft_buf_release(&next);
			goto out;
		}
	save(pl, "rewrite", "", 0);
out:
	save(pl, "tried", ids.s, ids.len);
	dft_buf_release(&ids);
	finish(pl, applied, "applied.ndjson");
	finish(pl, na, "not_applicable.ndjson");
	free(c);
}

/* ---- rollback ------------------------------------------------------------ */

static int
has_rollback(json_object *r)
{
	return value(member(member(r, "action"), "rollback"),
		     "command") != NULL;
}

/* The rollback commands of the applied actions (the operands), each one
 * rollback_K.sh in DIR unless a placeholder of it is left over; DIR/rollback
 * lists them in order. */
static void
plan_rollback(struct plan *pl)
{
	const struct facts *f = &pl->o->facts;
	struct dft_buf list, sc;
	int k = 0;

	dft_buf_init(&list);
	for (size_t i = 0; i < json_object_array_length(pl->all); i++) {
		json_object *c = value(member(member(json_object_array_get_idx(
				 pl->all, i), "action"), "rollback"), "command");
		size_t n = json_object_is_type(c, json_type_array) ?
			   json_object_array_length(c) : 0;
		char *name;
		int ok = 1;

		dft_buf_init(&sc);
		dft_buf_adds(&sc, "#!/bin/sh\ncd ");
		add_quoted(&sc, fact(f, F_WORK_DIR));
		dft_buf_addc(&sc, '\n');
		for (size_t j = 0; j < n && ok; j++) {
			json_object *e = json_object_array_get_idx(c, j);
			/* as @base64 and $(...) had it: null is "null", an
			 * empty word goes */
			char *w = e != NULL ? word(e) : dft_xstrdup("null");
			char *v = *w != '\0' ? fill(pl, w, "") : NULL;

			if (*w != '\0' && v == NULL)
				ok = 0;
			if (v != NULL) {
				dft_buf_addc(&sc, ' ');
				add_quoted(&sc, v);
			}
			free(v);
			free(w);
		}
		dft_buf_addc(&sc, '\n');
		if (ok) {
			name = dft_xasprintf("rollback_%d.sh", ++k);
			save(pl, name, sc.s, sc.len);
			dft_buf_addf(&list, "%s/%s\n", pl->o->run_dir, name);
			free(name);
		}
		dft_buf_release(&sc);
	}
	save(pl, "rollback", list.s, list.len);
	dft_buf_release(&list);
}

/* ---- the mode ----------------------------------------------------------- */

static json_object *
first_summary(struct plan *pl, const char *path)
{
	struct dft_reader r;
	json_object *rec, *s = NULL;

	if (path == NULL)
		return NULL;
	if (dft_reader_open(&r, path) != 0) {
		dft_warn("cannot read '%s':", path);
		pl->status = dft_worst(pl->status, DFT_EXIT_DATA);
		return NULL;
	}
	while (dft_reader_next(&r, &rec) == 1) {
		if (s == NULL && strcmp(dft_record_type(rec), "summary") == 0)
			s = rec;
		else
			json_object_put(rec);
	}
	if (r.bad > 0)
		pl->status = dft_worst(pl->status, DFT_EXIT_DATA);
	dft_reader_release(&r);
	return s;
}

int
plan_run(struct plan_opts *o, int argc, char **argv)
{
	struct plan pl;
	char **lines;
	size_t n;

	memset(&pl, 0, sizeof(pl));
	pl.o = o;
	pl.all = json_object_new_array();
	pl.earlier = json_object_new_array();
	if (!dft_is_dir(o->run_dir))
		dft_die("--run-dir '%s' is not a directory", o->run_dir);
	o->facts.summary = first_summary(&pl, o->analysis);
	pl.tried = read_lines(o->tried, &pl.ntried);
	lines = read_lines(o->failed, &n);
	for (size_t i = 0; i < n; i++) {
		char *tab = strchr(lines[i], '\t');

		if (tab != NULL)
			*tab++ = '\0';
		pl.failed = push(pl.failed, &pl.nfailed, lines[i]);
		pl.failed_why = dft_xreallocarray(pl.failed_why, pl.nfailed,
						  sizeof(char *));
		pl.failed_why[pl.nfailed - 1] = tab;
	}
	free(lines);
	for (size_t i = 0; i < o->nearlier; i++)
		read_proposals(&pl, o->earlier[i], pl.earlier, is_proposal);
	if (argc == 0)
		read_proposals(&pl, "-", pl.all, o->rollback ? has_rollback :
			       o->rewrites ? is_rewrite : is_proposal);
	for (int i = 0; i < argc; i++)
		read_proposals(&pl, argv[i], pl.all, o->rollback ? has_rollback :
			       o->rewrites ? is_rewrite : is_proposal);
	if (o->rollback)
		plan_rollback(&pl);
	else if (o->rewrites)
		plan_rewrites(&pl);
	else
		plan_actions(&pl);
	json_object_put(pl.all);
	json_object_put(pl.earlier);
	json_object_put(o->facts.summary);
	strs_free(pl.tried, pl.ntried);
	strs_free(pl.failed, pl.nfailed);	/* the reasons live in them */
	free(pl.failed_why);
	return pl.status;
}
