/* The scanner of fio's per-I/O logs, compiled ahead of time (perflab/fio/scan.py says why it exists).
 *
 * scan_fields(buf, nf, sel, out, bfield, mode, p1, p2, nrows) -> int
 *
 * Parses whole lines of `nf` comma-separated unsigned decimal integers (spaces, tabs and a
 * carriage return allowed around them) from `buf` (any bytes-like object).  `sel` (int64, nf
 * values) names the row of `out` (a writable C-contiguous 2-D int64 array) that field f goes to,
 * or -1 (parsed and checked, not kept).  Field `bfield` is stored as its bucket number when `mode`
 * is 1 (log-linear: `p1` sub-buckets a power of two, floor 2**p2) or 2 (linear: `p1` ns wide), at
 * most `nrows`, as Buckets.index computes it.  Returns the number of lines, or -(k + 1) when line
 * k (0-based) is not nf integers (or `out` has no room for it).  The GIL is released while it
 * runs, so two pieces parse at once on two threads.
 *
 * It was a numba function first; the same loop compiled here starts in no time, where numba's
 * import and the load of its cached machine code cost a command about 0.7 s on this project's
 * machine (benchmarks/RESULTS.md).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

static int int64_format(const Py_buffer *b)
{
    const char *f = b->format ? b->format : "B";
    if (*f == '<' || *f == '=' || *f == '@')
        f++;
    return b->itemsize == 8 && (strcmp(f, "q") == 0 || strcmp(f, "l") == 0);
}

static Py_ssize_t scan(const unsigned char *buf, Py_ssize_t n, Py_ssize_t nf, const int64_t *sel,
                       int64_t *out, Py_ssize_t nout, Py_ssize_t rows, Py_ssize_t bfield,
                       int mode, int64_t p1, int64_t p2, int64_t nrows)
{
    Py_ssize_t line = 0, f = 0;
    uint64_t x = 0;
    int nd = 0, closed = 0;   /* closed: a space ended the field's digits; another digit is an error */
    for (Py_ssize_t i = 0; i < n; i++) {
        unsigned c = buf[i];
        unsigned d = c - '0';
        if (d <= 9) {
            if (closed)
                return -(line + 1);
            x = x * 10 + d;       /* wraps past 20 digits: refused below (nd > 18) */
            nd++;
        } else if (c == ',' || c == '\n') {
            if (nd == 0 || nd > 18 || f >= nf) {   /* empty, longer than an int64 holds, one too many */
                if (c == '\n' && f == 0 && nd == 0)
                    continue;                       /* an empty line (skipped, as fio's readers do) */
                return -(line + 1);
            }
            int64_t k = sel[f];
            if (k >= 0) {
                int64_t v = (int64_t)x;
                if (f == bfield && mode == 1) {
                    int e;
                    double m = frexp((double)v, &e);   /* v = m * 2**e, 0.5 <= m < 1 */
                    v = (int64_t)(m * 2 * (double)p1) + (int64_t)e * p1 + 1 - (p2 + 2) * p1;
                    v = v < 0 ? 0 : (v > nrows ? nrows : v);
                } else if (f == bfield && mode == 2) {
                    v = v / p1;
                    v = v > nrows ? nrows : v;
                }
                if (k >= nout || line >= rows)
                    return -(line + 1);
                out[k * rows + line] = v;
            }
            f++;
            x = 0;
            nd = 0;
            closed = 0;
            if (c == '\n') {
                if (f != nf)
                    return -(line + 1);
                line++;
                f = 0;
            }
        } else if (c == ' ' || c == '\r' || c == '\t') {
            closed = nd > 0;
        } else {
            return -(line + 1);
        }
    }
    if (f != 0 || nd != 0)   /* the piece did not end with a newline */
        return -(line + 1);
    return line;
}

static PyObject *scan_fields(PyObject *self, PyObject *args)
{
    Py_buffer buf, sel, out;
    Py_ssize_t nf, bfield;
    int mode;
    long long p1, p2, nrows;
    if (!PyArg_ParseTuple(args, "y*ny*w*niLLL", &buf, &nf, &sel, &out, &bfield, &mode, &p1, &p2, &nrows))
        return NULL;
    PyObject *result = NULL;
    Py_buffer osh;   /* the shape of `out`, asked for apart: "w*" gives only its bytes */
    if (PyObject_GetBuffer(out.obj, &osh, PyBUF_RECORDS_RO | PyBUF_C_CONTIGUOUS) < 0)
        goto done;
    if (nf < 1 || sel.len != nf * 8 || osh.ndim != 2 || !int64_format(&osh)
        || (mode == 1 && (p1 < 1 || p2 < 0 || p2 > 62)) || (mode == 2 && p1 < 1)) {
        PyErr_SetString(PyExc_ValueError, "scan_fields: sel must hold nf int64, out be a C-contiguous "
                        "2-D int64 array, the bucket parameters positive");
    } else {
        Py_ssize_t nout = osh.shape[0], rows = osh.shape[1], r;
        const int64_t *s = (const int64_t *)sel.buf;
        Py_BEGIN_ALLOW_THREADS
        r = scan((const unsigned char *)buf.buf, buf.len, nf, s, (int64_t *)out.buf, nout, rows,
                 bfield, mode, p1, p2, nrows);
        Py_END_ALLOW_THREADS
        result = PyLong_FromSsize_t(r);
    }
    PyBuffer_Release(&osh);
done:
    PyBuffer_Release(&buf);
    PyBuffer_Release(&sel);
    PyBuffer_Release(&out);
    return result;
}

static PyMethodDef methods[] = {
    {"scan_fields", scan_fields, METH_VARARGS,
     "scan_fields(buf, nf, sel, out, bfield, mode, p1, p2, nrows) -> lines, or -(k + 1) at a bad line k"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_scan", "fio per-I/O log scanner", -1, methods};

PyMODINIT_FUNC PyInit__scan(void)
{
    return PyModule_Create(&module);
}
