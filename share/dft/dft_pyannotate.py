#!/usr/bin/env python3
"""dft_pyannotate.py - the Python side of dft-annotate and dft-lint.

    python3 dft_pyannotate.py annotate FILE STYLE <records.json >result.json
    python3 dft_pyannotate.py strip FILE >original
    python3 dft_pyannotate.py lint FILE >diagnostics.ndjson

Everything goes on existing lines, so line numbers (tracebacks, the
positions in traces) stay the same:

  header   appended to the last module-level import before the first
           instrumented def ("import os; from dftracer.python import ...;
           _dft = DFTracerFn(...)"), or written into an empty line;
           the entry file also initialises the log and registers
           _dft_log.finalize with atexit, so every exit of the entry point
           (return, sys.exit, an exception) finalises the trace;
  def      the decorator goes on the empty (or comment-only) line above the
           def and its decorators, else "f = _dft.log(f)" goes on the empty
           line after the body (the same thing a decorator does); under
           user decorators (any but TRANSPARENT) it must go innermost, on
           a free line between them and the def, else the def is skipped
           (wrapping their result would hide what they keep: a registry
           entry, a counter on the wrapper);
  kinds    a def whose outermost decorator is @staticmethod, @classmethod,
           @property, @x.getter, @x.setter or @x.deleter cannot take a
           decorator above (it would wrap the descriptor, not the
           function), so the empty line after the body gets the rebind
           that wraps the function inside it:
             f = staticmethod(_dft.log(f.__func__))
             f = classmethod(_dft.log(f.__func__))
             f = f.getter(_dft.log(f.fget))      (@property, @x.getter)
             f = f.setter(_dft.log(f.fset))      (@x.setter)
             f = f.deleter(_dft.log(f.fdel))     (@x.deleter)
           Such a decorator under another one, cached_property,
           abstractmethod under one of them and abc's abstract descriptors
           are skipped with the reason;
  loops    with --style ai, "for epoch in X:" becomes
           "for epoch in dft_ai.pipeline.epoch.iter(X):", and a batch loop
           (batch-like target names, or an iterable that names a loader:
           "for x, y in loader:") gets dataloader.fetch.iter, which logs
           the wait for each batch (fetch.iter) and the loop body
           (fetch.block); an iterable written on several lines is left alone.

_dft.log may be _dft.log_init or a dft_ai decorator (decorator_for).
A record selects a def by qualified name and def line (a property's getter,
setter and deleter share the name).  Every fragment has one fixed shape
(REBIND holds the rebind ones), and strip removes exactly those.
"""
import ast
import io
import json
import re
import sys
import tokenize

HEADER_IMPORT = "from dftracer.python import dftracer, dft_fn as DFTracerFn"
HEADER_AI = ", ai as dft_ai"
ENTRY = ('_dft_log = dftracer.initialize_log(logfile=None, data_dir=None, '
         'process_id=-1); __import__("atexit").register(_dft_log.finalize)')
HEADER_RE = re.compile(
    r'from dftracer\.python import dftracer, dft_fn as DFTracerFn'
    r'(?:, ai as dft_ai)?; _dft = DFTracerFn\("[A-Za-z0-9_.-]*"\)'
    r'(?:; _dft_log = dftracer\.initialize_log\(logfile=None, '
    r'data_dir=None, process_id=-1\); '
    r'__import__\("atexit"\)\.register\(_dft_log\.finalize\))?')
DEC_NAMES = r'(?:_dft\.log_init|_dft\.log|dft_ai(?:\.[a-z_]+)*)'
DEC_LINE_RE = re.compile(r'^([ \t]*)@(' + DEC_NAMES + r')( ?|  (#.*))$')
# The rebind line by the kind of the def's outermost decorator: {f} is the
# def's name, {d} the decorator (one of DEC_NAMES).
REBIND = {
    None: '{f} = {d}({f})',
    'staticmethod': '{f} = staticmethod({d}({f}.__func__))',
    'classmethod': '{f} = classmethod({d}({f}.__func__))',
    'getter': '{f} = {f}.getter({d}({f}.fget))',
    'setter': '{f} = {f}.setter({d}({f}.fset))',
    'deleter': '{f} = {f}.deleter({d}({f}.fdel))',
}
KINDS = {'staticmethod': 'staticmethod', 'classmethod': 'classmethod',
         'property': 'getter'}
ABSTRACT = ('abstractmethod', 'abc.abstractmethod')
ABSTRACT_KINDS = ('abstractproperty', 'abc.abstractproperty',
                  'abstractstaticmethod', 'abc.abstractstaticmethod',
                  'abstractclassmethod', 'abc.abstractclassmethod')
CACHED = ('cached_property', 'functools.cached_property')
# Decorators that a tracing decorator may wrap without changing behaviour:
# they hand back a function, or a cache or context-manager factory, and
# keep no state on it that the program reads through the traced copy --
# unless the file uses one of the attributes listed (a cache's methods are
# not copied to the wrapper). Under any other decorator the trace goes
# innermost, on a free line between the decorators and the def, or the def
# is skipped with USER_DECORATORS.
_CACHE_ATTRS = ('cache_info', 'cache_clear', 'cache_parameters')
TRANSPARENT = {
    'functools.lru_cache': _CACHE_ATTRS, 'lru_cache': _CACHE_ATTRS,
    'functools.cache': _CACHE_ATTRS, 'cache': _CACHE_ATTRS,
    'contextlib.contextmanager': (), 'contextmanager': (),
    'contextlib.asynccontextmanager': (), 'asynccontextmanager': (),
    'functools.wraps': (), 'wraps': (),
}
USER_DECORATORS = 'user decorators: tracing would wrap their result'


def rebind_re(shape):
    """A regex for one REBIND shape: groups indent, name, trailing space."""
    rx, seen = '', False
    for part in re.split(r'(\{[fd]\})', shape):
        if part == '{f}':
            rx += r'\2' if seen else r'([A-Za-z_][A-Za-z0-9_]*)'
            seen = True
        elif part == '{d}':
            rx += DEC_NAMES
        else:
            rx += re.escape(part)
    return re.compile(r'^([ \t]*)' + rx + r'( ?)$')


REBIND_RES = [rebind_re(x) for x in REBIND.values()]
LOOP_RE = re.compile(r'dft_ai\.(?:pipeline\.epoch|dataloader\.fetch)\.iter\(')

AI_TABLE = [
    (r'^run$|^main$|^__call__$', 'dft_ai'),
    (r'\btrain\b|\btraining\b|^fit$|^_fit$', 'dft_ai.pipeline.train'),
    (r'\beval\b|\bevaluat|\bvalidat', 'dft_ai.pipeline.evaluate'),
    (r'\btest\b|\btesting\b', 'dft_ai.pipeline.test'),
    (r'^forward$', 'dft_ai.compute.forward'),
    (r'^backward$', 'dft_ai.compute.backward'),
    (r'^optimizer_step$|^optim_step$', 'dft_ai.compute.step'),
    (r'\bcompute\b|\btrain_step\b|\beval_step\b', 'dft_ai.compute'),
    (r'\bpreprocess\b|\btransform\b|\baugment\b|\bcollate\b',
     'dft_ai.data.preprocess'),
    (r'^__getitem__$|read_index|\bload_item\b|\bget_item\b',
     'dft_ai.data.item'),
    (r'\bfetch\b|\bload_batch\b|\bnext\b', 'dft_ai.dataloader.fetch'),
    (r'save_checkpoint|save_ckpt|write_ckpt', 'dft_ai.checkpoint.capture'),
    (r'load_checkpoint|load_ckpt|restore_ckpt', 'dft_ai.checkpoint.restart'),
    (r'to_device|device_transfer|\btransfer\b', 'dft_ai.device.transfer'),
]
EPOCH_RE = re.compile(r'\bepoch\b')
BATCH_RE = re.compile(r'\b(batch|sample|item|data|loader_item|minibatch)\b')
LOADER_RE = re.compile(r'loader', re.I)


def is_loader(expr):
    """Whether a loop's iterable names a data loader: a name or attribute
    containing "loader" (loader, train_loader, self.val_loader,
    DataLoader(...), enumerate(loader)), so that "for x, y in loader:" is
    a batch loop whatever its targets are called."""
    for n in ast.walk(expr):
        if isinstance(n, ast.Name) and LOADER_RE.search(n.id) or \
                isinstance(n, ast.Attribute) and LOADER_RE.search(n.attr):
            return True
    return False


def split_lines(text):
    """Lines with their ends, and the end of each ('\\n', '\\r\\n', '')."""
    out = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip('\r\n')
        out.append([body, line[len(body):]])
    return out


def join_lines(lines):
    return ''.join(b + e for b, e in lines)


def decorator_for(name, style):
    if style == 'ai':
        low = name.lower()
        for rx, dec in AI_TABLE:
            if re.search(rx, low):
                return dec
    return '_dft.log_init' if name == '__init__' else '_dft.log'


def dec_names(node):
    out = []
    for d in node.decorator_list:
        t = d.func if isinstance(d, ast.Call) else d
        out.append(ast.unparse(t) if hasattr(ast, 'unparse') else '')
    return out


def kind_of(name):
    """The REBIND key of a decorator name that makes a descriptor, or None."""
    if name in KINDS:
        return KINDS[name]
    for k in ('getter', 'setter', 'deleter'):
        if name.endswith('.' + k):
            return k
    return None


def rebind_kind(names):
    """(kind, None) when the def takes the rebind of REBIND[kind] (kind None:
    any form), or (None, reason) when it must be skipped."""
    for n in names:
        if n in CACHED:
            return None, ('a cached_property (only staticmethod, '
                          'classmethod and property have a rebind shape)')
        if n in ABSTRACT_KINDS:
            return None, ('an abstract descriptor (@%s) has no rebind '
                          'shape' % n)
    kinds = [kind_of(n) for n in names]
    if not any(kinds):
        return None, None
    for n, k in list(zip(names, kinds))[1:]:
        if k:
            return None, ('@%s is not the outermost decorator, so no '
                          'rebind line can reach the function' % n)
    if any(n in ABSTRACT for n in names):
        return None, 'an abstract method under @%s' % names[0]
    return kinds[0], None


def user_decorators(names, kind, fname, attrs):
    """The decorators of a def that a tracing decorator above them (or a
    rebind line after the body) would wrap: all but the descriptor kind
    (it takes the rebind) and TRANSPARENT ones; attrs holds the (name,
    attribute) pairs the file reads, fname is the def's name."""
    return [n for n in names[1 if kind else 0:]
            if n not in TRANSPARENT or
            any((fname, a) in attrs for a in TRANSPARENT[n])]


def decorator_line(b, indent, dec):
    """The text of line b with the decorator on it, or None when b is not
    empty, blank at the def's indent or a comment."""
    if b == '':
        return indent + '@' + dec
    if b == indent:
        return indent + '@' + dec + ' '
    if b.startswith(indent + '#') and not b[len(indent):].startswith('#!'):
        return indent + '@' + dec + '  ' + b[len(indent):]
    return None


def functions(tree):
    """(qualname, node, parent_is_class) for every def, outer first."""
    res = []

    def walk(body, prefix, in_class):
        for n in body:
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
                q = prefix + n.name
                res.append((q, n, in_class))
                walk(n.body, q + '.', False)
            elif isinstance(n, ast.ClassDef):
                walk(n.body, prefix + n.name + '.', True)
            else:
                for f in ('body', 'orelse', 'finalbody', 'handlers'):
                    sub = getattr(n, f, None)
                    if isinstance(sub, list):
                        walk(sub, prefix, in_class)
    walk(tree.body, '', False)
    return res


def is_blank(s):
    return s.strip() == ''


def annotate(path, style, records):
    text = open(path, encoding='utf-8', newline='').read()
    if 'from dftracer' in text or 'import dftracer' in text:
        if HEADER_RE.search(text):
            return {'already_annotated': True}
        return {'refused': 'it already has dftracer instrumentation that '
                           'dft-annotate did not write'}
    try:
        tree = ast.parse(text)
    except SyntaxError as e:
        return {'refused': 'it does not parse: %s' % e}
    lines = split_lines(text)
    want = {}       # qualified name -> def lines (None: any)
    entry = False
    for r in records:
        q = r.get('qualified_name') or r.get('name')
        if r.get('is_entry'):
            entry = True
        d = r.get('decision') or {}
        if d.get('annotate') or r.get('name') == 'main' and r.get('is_entry'):
            # a property's getter, setter and deleter share one name
            want.setdefault(q, set()).add(
                (r.get('signature') or {}).get('line'))
    # (name, attribute) pairs the file reads: "f.cache_info", "x.f.calls"
    attrs = {(getattr(n.value, 'id', None) or getattr(n.value, 'attr', None),
              n.attr) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    annotated, skipped = [], []
    edits = []      # (line index, new body) for whole-line rewrites
    inline = []     # (line index, col, text) insertions
    used = set()
    wrapped = set()  # loop iterables already wrapped: (line index, col)
    first_line = None
    for q, node, in_class in functions(tree):
        if q not in want or \
                None not in want[q] and node.lineno not in want[q]:
            continue
        names = dec_names(node)
        kind, why = rebind_kind(names)
        if why:
            skipped.append({'name': q, 'reason': why})
            continue
        if any('jit' in n or n.endswith('njit') for n in names):
            skipped.append({'name': q, 'reason': 'a JIT-compiled function'})
            continue
        dec = decorator_for(node.name, style)
        top = min([node.lineno] + [d.lineno for d in node.decorator_list])
        indent = lines[node.lineno - 1][0][:node.col_offset]
        done = False
        i = top - 2
        if user_decorators(names, kind, node.name, attrs):
            # innermost, on a free line between the decorators and the def
            i = node.lineno - 2
            t = None
            if i >= max(d.end_lineno for d in node.decorator_list) and \
                    i not in used:
                t = decorator_line(lines[i][0], indent, dec)
            if t is None:
                skipped.append({'name': q, 'reason': USER_DECORATORS})
                continue
            edits.append((i, t))
            done = True
        elif kind is None and i >= 0 and i not in used:
            t = decorator_line(lines[i][0], indent, dec)
            if t is not None:
                edits.append((i, t))
                done = True
        if not done:
            j = node.end_lineno  # index of the line after the body
            if j < len(lines) and j not in used and \
                    lines[j][0] in ('', indent):
                sp = ' ' if lines[j][0] == indent and indent else ''
                edits.append((j, indent + REBIND[kind].format(
                    f=node.name, d=dec) + sp))
                done = True
                i = j
        if not done:
            why = 'no empty line above or below the def for the decorator'
            if kind is not None:
                why = ('no empty line below the body for the rebind line '
                       '(@%s takes no decorator above it)' % names[0])
            skipped.append({'name': q, 'reason': why})
            continue
        used.add(i)
        annotated.append(q)
        if first_line is None or node.lineno < first_line:
            first_line = top
        if style == 'ai':
            for n in ast.walk(node):
                if isinstance(n, (ast.For, ast.AsyncFor)) and \
                        n.iter.lineno == n.iter.end_lineno:
                    tgt = ast.get_source_segment(text, n.target) or ''
                    if EPOCH_RE.search(tgt):
                        w = 'dft_ai.pipeline.epoch.iter('
                    elif BATCH_RE.search(tgt) or is_loader(n.iter):
                        w = 'dft_ai.dataloader.fetch.iter('
                    else:
                        continue
                    # a loop inside a nested def is seen from both defs
                    at = (n.iter.lineno - 1, n.iter.col_offset)
                    if at in wrapped:
                        continue
                    wrapped.add(at)
                    inline.append(at + (w,))
                    inline.append((n.iter.end_lineno - 1,
                                   n.iter.end_col_offset, ')'))
    if not annotated and not entry:
        return {'annotated': [], 'skipped': skipped}
    # the header
    cat = re.sub(r'[^A-Za-z0-9_.-]', '_', path.rsplit('/', 1)[-1][:-3] or 'app')
    head = HEADER_IMPORT + (HEADER_AI if style == 'ai' else '') + \
        '; _dft = DFTracerFn("%s")' % cat + ('; ' + ENTRY if entry else '')
    limit = first_line if first_line is not None else len(lines) + 1
    imp = None
    for n in tree.body:
        if isinstance(n, (ast.Import, ast.ImportFrom)) and n.lineno < limit:
            imp = n
    if imp is not None:
        inline.append((imp.end_lineno - 1, imp.end_col_offset, '; ' + head))
    else:
        # an empty line at module level before the first instrumented def
        body_lines = set()
        for n in tree.body:
            for k in range(n.lineno, (n.end_lineno or n.lineno) + 1):
                body_lines.add(k)
        spot = None
        for k in range(1, min(limit, len(lines) + 1)):
            if lines[k - 1][0] == '' and k not in body_lines and \
                    (k - 1) not in used and not in_string(text, k):
                doc_end = 0
                if tree.body and isinstance(tree.body[0], ast.Expr) and \
                        isinstance(getattr(tree.body[0], 'value', None),
                                   ast.Constant):
                    doc_end = tree.body[0].end_lineno
                if k > doc_end:
                    spot = k
                    break
        if spot is None:
            return {'refused': 'no place for the dftracer import on an '
                               'existing line'}
        edits.append((spot - 1, head))
    for i, body in edits:
        lines[i][0] = body
    for i, col, t in sorted(inline, key=lambda x: (x[0], -x[1])):
        # col is in characters of the line's text (ast gives UTF-8 bytes)
        b = lines[i][0]
        c = len(b.encode('utf-8')[:col].decode('utf-8', 'replace'))
        lines[i][0] = b[:c] + t + b[c:]
    return {'text': join_lines(lines), 'annotated': annotated,
            'skipped': skipped, 'fragments': len(edits) + len(inline)}


def in_string(text, lineno):
    try:
        toks = tokenize.generate_tokens(io.StringIO(text).readline)
        for t in toks:
            if t.type == tokenize.STRING and t.start[0] < lineno < t.end[0]:
                return True
    except (tokenize.TokenError, SyntaxError):
        return True
    return False


def strip(path):
    text = open(path, encoding='utf-8', newline='').read()
    m = HEADER_RE.search(text)
    if not m:
        return None, 'no dft-annotate header'
    lines = split_lines(text)
    out = []
    for body, end in lines:
        mm = DEC_LINE_RE.match(body)
        if mm:
            ind, _dec, sp, com = mm.group(1), mm.group(2), mm.group(3), \
                mm.group(4)
            if com:
                body = ind + com
            else:
                body = ind if sp == ' ' else ''
        else:
            for rx in REBIND_RES:
                mm = rx.match(body)
                if mm:
                    body = mm.group(1) if mm.group(3) == ' ' else ''
                    break
        if HEADER_RE.search(body):
            h = HEADER_RE.search(body)
            s, e = h.span()
            if s >= 2 and body[s - 2:s] == '; ':
                body = body[:s - 2] + body[e:]
            elif s == 0 and e == len(body):
                body = ''
        # loop wrappers
        while True:
            lm = LOOP_RE.search(body)
            if not lm:
                break
            depth, k = 1, lm.end()
            while k < len(body) and depth:
                if body[k] in '([{':
                    depth += 1
                elif body[k] in ')]}':
                    depth -= 1
                k += 1
            if depth:
                return None, 'a loop wrapper was edited by hand'
            body = body[:lm.start()] + body[lm.end():k - 1] + body[k:]
        out.append([body, end])
    res = join_lines(out)
    if 'DFTracerFn' in res or '_dft.' in res or 'dft_ai.' in res:
        return None, 'instrumentation left that dft-annotate did not write'
    return res, None


def lint(path):
    diags = []

    def d(line, col, rule, msg, sev='error'):
        diags.append({'line': line, 'col': col, 'rule': rule,
                      'severity': sev, 'message': msg})
    text = open(path, encoding='utf-8', newline='').read()
    try:
        tree = ast.parse(text)
    except SyntaxError as e:
        d(e.lineno or 0, e.offset or 0, 'syntax', 'SyntaxError: %s' % e.msg)
        return diags
    imp = dfn = init = None
    fin = False
    first_dec = None
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and n.module == 'dftracer.python':
            if imp is None or (n.lineno, n.col_offset) < imp:
                imp = (n.lineno, n.col_offset)
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and \
                getattr(n.value.func, 'id', '') == 'DFTracerFn' and \
                any(getattr(t, 'id', '') == '_dft' for t in n.targets):
            if dfn is None or (n.lineno, n.col_offset) < dfn:
                dfn = (n.lineno, n.col_offset)
        if isinstance(n, ast.Call):
            f = n.func
            if isinstance(f, ast.Attribute) and f.attr == 'initialize_log':
                if init is None or (n.lineno, n.col_offset) < init:
                    init = (n.lineno, n.col_offset)
        if isinstance(n, ast.Attribute) and n.attr == 'finalize' and \
                getattr(n.value, 'id', '') == '_dft_log':
            fin = True
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for dd in n.decorator_list:
                s = ast.get_source_segment(text, dd) or ''
                if s.startswith(('_dft.', 'dft_ai')):
                    if s.startswith('_dft.log_static'):
                        d(dd.lineno, dd.col_offset + 1, 'PL1',
                          'log_static is never used', 'warning')
                    p = (dd.lineno, dd.col_offset)
                    if first_dec is None or p < first_dec:
                        first_dec = p
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call):
            c = n.value
            s = ast.get_source_segment(text, c.func) or ''
            if kind_of(s) and c.args and isinstance(c.args[0], ast.Call):
                # f = staticmethod(_dft.log(f.__func__)), f = f.setter(...)
                s = ast.get_source_segment(text, c.args[0].func) or ''
            if s.startswith(('_dft.log', 'dft_ai')):
                p = (n.lineno, n.col_offset)
                if first_dec is None or p < first_dec:
                    first_dec = p
    if first_dec is not None:
        if imp is None:
            d(first_dec[0], first_dec[1] + 1, 'PL1',
              'dftracer decorator without "from dftracer.python import"')
        elif imp > first_dec:
            d(imp[0], imp[1] + 1, 'PL1',
              '"from dftracer.python import" after the first decorator')
        if dfn is None:
            d(first_dec[0], first_dec[1] + 1, 'PL2',
              'dftracer decorator without "_dft = DFTracerFn(...)"')
        elif dfn > first_dec:
            d(dfn[0], dfn[1] + 1, 'PL2',
              '"_dft = DFTracerFn(...)" after the first decorator')
        if init is not None and init > first_dec:
            d(init[0], init[1] + 1, 'PL3',
              'initialize_log after the first decorator')
    if init is not None and not fin:
        d(init[0], init[1] + 1, 'PL4',
          'initialize_log without _dft_log.finalize()')
    return diags


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    cmd, path = argv[1], argv[2]
    if cmd == 'annotate':
        records = json.load(sys.stdin)
        res = annotate(path, argv[3] if len(argv) > 3 else 'generic',
                       records)
        json.dump(res, sys.stdout)
        return 0
    if cmd == 'strip':
        res, why = strip(path)
        if res is None:
            sys.stderr.write(why + '\n')
            return 1
        sys.stdout.buffer.write(res.encode('utf-8'))
        return 0
    if cmd == 'lint':
        for x in lint(path):
            sys.stdout.write(json.dumps(x) + '\n')
        return 0
    sys.stderr.write('unknown command %s\n' % cmd)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
