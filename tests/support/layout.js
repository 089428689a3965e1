// The book's layout check: what a reader would call broken, measured in the page as the browser
// lays it out. tests/support/layout.py evaluates this file in a loaded page, then calls
// `perflabLayout.run()`, which returns a list of defects:
//   {kind, element, text, section, numbers}
// kind: one of KINDS below; element: a short CSS path; text: the element's text (short); section: the
// id of the page section it is in; numbers: what was measured against which threshold.
// Each check is one function; THRESHOLDS holds every number a rule uses. The rules, and why, are in
// the docstring of tests/support/layout.py.
var perflabLayout = (() => {
  const THRESHOLDS = {
    minFigureFontPx: 10,        // figure text under this is too small to read
    maxAngleDeg: 0.5,           // text turned by more than this is "rotated"
    minMarkPx: 2,               // a bar with a non-zero value drawn thinner than this is invisible
    minBoxPx: 2,                // a box-plot box (q1..q3) with a non-zero spread drawn thinner than this
    slackPx: 1,                 // rounding slack for widths and edges
    maxDarkLuminance: 0.4,      // in dark mode, a background brighter than this is a light slab
    minSlabPx: 24,              // ... if the element is at least this tall and wide (not a badge or a dot)
    touchPx: 1,                 // two figure texts whose letters come this close touch (anti-aliased edges meet)
    minMarkContrast: 2,         // a data mark under this WCAG contrast with its plot ...
    minMarkChroma: 10,          // ... and nearer than this to its hue and saturation (CIELAB a*b*) vanishes
  };
  // The class the book puts on (or around) a scroll box to draw its "more to the right" cue.
  const SCROLL_CUE_CLASS = 'perflab-scroll-cue';

  const short = (s, n = 60) => { s = String(s || '').replace(/\s+/g, ' ').trim(); return s.length > n ? s.slice(0, n - 1) + '…' : s; };
  const r1 = v => Math.round(v * 10) / 10;
  const visible = e => e.checkVisibility ? e.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})
                                        : !!(e.offsetWidth || e.getClientRects().length);
  // above the document's top: no reader reaches it (a skip link waiting for keyboard focus)
  const offPage = r => r.bottom + window.scrollY <= 0;
  function path(e) {
    const parts = [];
    for (let n = e; n && n.nodeType === 1 && parts.length < 4; n = n.parentElement) {
      const cls = (typeof n.className === 'string' ? n.className : (n.className && n.className.baseVal) || '')
        .split(/\s+/).filter(c => c).slice(0, 2).map(c => '.' + c).join('');
      parts.unshift(n.tagName.toLowerCase() + (n.id ? '#' + n.id : '') + cls);
      if (n.id) break;
    }
    return parts.join(' > ');
  }
  function section(e) {
    const s = e.closest && e.closest('section[id]');
    return s ? s.id : '';
  }
  function defect(kind, e, numbers, text) {
    return {kind, element: path(e), text: short(text === undefined ? (e.textContent || '') : text),
            section: section(e), numbers};
  }
  const figures = () => [...document.querySelectorAll('.plotly-graph-div')].filter(visible);
  // a figure's name: its number on the page and the title its author gave (plotly's full layout has
  // a placeholder when there is none)
  const figName = gd => {
    const t = gd.layout && gd.layout.title, text = t && (typeof t === 'string' ? t : t.text);
    const n = [...document.querySelectorAll('.plotly-graph-div')].indexOf(gd) + 1;
    return `figure ${n}` + (text ? ` "${short(String(text).replace(/<[^>]*>/g, ' '), 50)}"` : '');
  };
  // where a bar or box stands on its category axis: the label there, else its position
  const posLabel = (gd, tr, d, horiz) => {
    const arr = horiz ? tr.y : tr.x;
    if (arr && d.i !== undefined && arr[d.i] !== undefined) return arr[d.i];
    const ax = gd._fullLayout[(horiz ? tr.yaxis : tr.xaxis).replace(/^([xy])/, '$1axis')];
    const pos = d.pos !== undefined ? d.pos : d.p;
    return (ax && ax._categories && ax._categories[pos] !== undefined) ? ax._categories[pos] : pos;
  };

  // -- figure text: font size and rotation --
  // Every visible <text> of a plotly figure's SVG layers (ticks, axis titles, legend, annotations,
  // colour bars, bar labels). Its drawn size is its computed font size times the scale of its
  // transform; its angle is that of its transform to the SVG (getCTM). A y axis's title (.ytitle,
  // .y2title, ...) may be turned (vertical titles are the convention); nothing else may.
  const textRole = t => t.closest('[class*="tick"]') ? 'tick' : (t.closest('.legend') ? 'legend'
    : (t.closest('.annotation') ? 'annotation' : ((t.getAttribute('class') || '').replace(/\s+/g, ' ') || 'text')));
  const isYTitle = t => [...t.classList].some(c => /^y\d*title$/.test(c)) || !!t.closest('.cbtitle, .colorbar .cbtitle');
  function figureText() {
    const out = [];
    for (const gd of figures()) {
      for (const t of gd.querySelectorAll('svg.main-svg text')) {
        if (!t.textContent.trim() || !visible(t)) continue;
        const box = t.getBBox();
        if (box.width < 0.5 || box.height < 0.5) continue;
        const m = t.getCTM();
        if (!m) continue;
        const scale = Math.hypot(m.a, m.b);
        const size = parseFloat(getComputedStyle(t).fontSize) * scale;
        const angle = Math.atan2(m.b, m.a) * 180 / Math.PI;
        const role = textRole(t);
        if (size < THRESHOLDS.minFigureFontPx - 0.05)
          out.push(defect('small-figure-text', t, {font_px: r1(size), min_px: THRESHOLDS.minFigureFontPx, role,
                                                   figure: figName(gd)}));
        if (Math.abs(angle) > THRESHOLDS.maxAngleDeg && !isYTitle(t))
          out.push(defect('rotated-figure-text', t, {angle_deg: r1(angle), font_px: r1(size), role, figure: figName(gd)}));
      }
    }
    return out;
  }

  // -- figure marks: a value drawn too thin to see --
  // Bars: each drawn bar's datum (plotly's calcdata point: s, the bar's size) against its path's
  // bounding box in the value direction (height for vertical bars, width for horizontal ones).
  // Boxes: a box whose q3 - q1 is not 0, drawn thinner than minBoxPx in the value direction.
  function thinMarks() {
    const out = [];
    for (const gd of figures()) {
      for (const g of gd.querySelectorAll('g.trace.bars, g.trace.boxes')) {
        const cd = g.__data__;
        const tr = cd && cd[0] && cd[0].trace;
        if (!tr) continue;
        const horiz = tr.orientation === 'h';
        const isBox = g.classList.contains('boxes');
        const sel = isBox ? 'path.box' : 'g.point path';
        for (const p of g.querySelectorAll(sel)) {
          const d = (isBox ? p.__data__ : p.parentElement.__data__) || p.__data__;
          if (!d) continue;
          const value = isBox ? (d.q3 - d.q1) : d.s;
          if (!isFinite(value) || value === 0) continue;
          const b = p.getBBox();
          const m = p.getScreenCTM();
          const px = (horiz ? b.width * (m ? Math.hypot(m.a, m.b) : 1) : b.height * (m ? Math.hypot(m.c, m.d) : 1));
          const min = isBox ? THRESHOLDS.minBoxPx : THRESHOLDS.minMarkPx;
          if (px < min - 0.05)
            out.push(defect('thin-mark', p, {drawn_px: r1(px), min_px: min, value: isBox ? [d.q1, d.q3] : value,
                                             mark: isBox ? 'box' : 'bar', trace: short(tr.name || '', 30),
                                             at: short(String(posLabel(gd, tr, d, horiz)), 30),
                                             figure: figName(gd)}, tr.name || ''));
        }
      }
    }
    return out;
  }

  // -- tables and code wider than their column with no cue that they scroll --
  // For each visible pre, div.highlight and table: its scroll box is itself when its overflow-x is
  // not visible, else its nearest ancestor whose overflow-x is not visible. The content is wider
  // than that box when scrollWidth > clientWidth + slack (for a box that is the element itself) or the
  // element's width > the box's clientWidth + slack. Then: overflow hidden/clip: cut, a defect;
  // overflow auto/scroll: a defect unless the box, or its parent, has the class SCROLL_CUE_CLASS or a
  // gradient background (the book's cue); overflow visible all the way up: it spills, a defect.
  // Scrollbars are no cue: headless Chromium hides them, and phones and macOS show none until a
  // reader scrolls.
  const hasCue = e => !!e && (e.classList.contains(SCROLL_CUE_CLASS) ||
                              /gradient/.test(getComputedStyle(e).backgroundImage));
  function wideBlocks() {
    const out = [], seen = new Set();
    for (const e of document.querySelectorAll('pre, div.highlight, table')) {
      if (!visible(e) || e.closest('.plotly-graph-div')) continue;
      let box = e;
      while (box && box !== document.body && ['visible', ''].includes(getComputedStyle(box).overflowX)) box = box.parentElement;
      const spills = !box || box === document.body || box === document.documentElement;
      const w = e.getBoundingClientRect().width;
      let content, column;
      if (!spills && box === e) { content = e.scrollWidth; column = e.clientWidth; }
      else if (!spills) { content = Math.max(w, box.scrollWidth); column = box.clientWidth; }
      else { content = Math.max(w, e.scrollWidth); column = (e.parentElement || e).clientWidth; }
      if (content <= column + THRESHOLDS.slackPx) continue;
      const key = spills ? e : box;
      if (seen.has(key)) continue;
      seen.add(key);
      const overflow = spills ? 'visible' : getComputedStyle(box).overflowX;
      if ((overflow === 'auto' || overflow === 'scroll') && (hasCue(box) || hasCue(box.parentElement))) continue;
      out.push(defect('wide-block', e, {content_px: Math.round(content), column_px: Math.round(column), overflow,
                                        scroll_box: spills ? '' : path(box), cue: false}));
    }
    return out;
  }

  // -- code lines that wrap --
  // A pre whose white-space lets lines wrap (pre-wrap, pre-line, normal, break-spaces): each source
  // line (text between newlines) is measured with a Range; one that spans more than one visual line
  // top is wrapped. The break is located by walking the line's characters; `mid_token` says whether
  // it fell inside a word (no space on either side).
  function textIndex(root) {
    const nodes = [], w = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    let off = 0;
    for (let n = w.nextNode(); n; n = w.nextNode()) { nodes.push([n, off]); off += n.data.length; }
    const at = i => {   // the text node and offset holding global offset i
      let lo = 0, hi = nodes.length - 1;
      while (lo < hi) { const mid = (lo + hi + 1) >> 1; if (nodes[mid][1] <= i) lo = mid; else hi = mid - 1; }
      const [n, o] = nodes[lo];
      return [n, Math.min(i - o, n.data.length)];
    };
    return at;
  }
  function lineTops(range) {
    const tops = [];
    for (const r of range.getClientRects()) {
      if (r.width < 0.5 || r.height < 0.5) continue;
      if (!tops.some(t => Math.abs(t - r.top) < r.height / 2)) tops.push(r.top);
    }
    return tops;
  }
  function wrappedCode() {
    const out = [];
    for (const pre of document.querySelectorAll('pre')) {
      if (!visible(pre) || !/^(pre-wrap|pre-line|normal|break-spaces)$/.test(getComputedStyle(pre).whiteSpace)) continue;
      const text = pre.textContent;
      if (!text) continue;
      const at = textIndex(pre);
      const range = document.createRange();
      let start = 0, wrapped = 0, first = null;
      for (const line of text.split('\n')) {
        const end = start + line.length;
        if (line.trim()) {
          range.setStart(...at(start)); range.setEnd(...at(end));
          const tops = lineTops(range);
          if (tops.length > 1) {
            wrapped += 1;
            if (!first) {
              // the first character that is on a later visual line than the line's first
              let k = 1;
              for (; k < line.length; k++) {
                range.setStart(...at(start + k)); range.setEnd(...at(start + k + 1));
                const t = lineTops(range);
                if (t.length && t[0] > Math.min(...tops) + 1) break;
              }
              const before = line.slice(0, k), after = line.slice(k);
              first = {line: short(line, 80), visual_lines: tops.length, break_after: short(before.slice(-16), 16),
                       break_before: short(after.slice(0, 16), 16),
                       mid_token: !/\s$/.test(before) && !/^\s/.test(after)};
            }
          }
        }
        start = end + 1;
      }
      if (wrapped)
        out.push(defect('wrapped-code-line', pre, {wrapped_lines: wrapped, white_space: getComputedStyle(pre).whiteSpace,
                                                   ...first}, first.line));
    }
    return out;
  }

  // -- light backgrounds in dark mode --
  // With html[data-theme=dark]: every visible element at least minSlabPx in both directions whose
  // computed background colour (alpha >= 0.5) has a relative luminance above maxDarkLuminance; only the
  // outermost of nested ones. Plotly figures: the layout's paper and plot background colours.
  const parseRGB = s => { const m = String(s).match(/rgba?\(([^)]+)\)/); if (!m) return null;
    const v = m[1].split(/[ ,/]+/).filter(x => x).map(Number); return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1]; };
  const toRGB = s => { if (!s) return null; const c = document.createElement('canvas').getContext('2d');
    c.fillStyle = '#000'; c.fillStyle = s; const f = c.fillStyle;   // #rrggbb or rgba(...)
    if (f[0] === '#') return [1, 3, 5].map(i => parseInt(f.slice(i, i + 2), 16)).concat([1]);
    return parseRGB(f); };
  const linear = c => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };   // sRGB to light
  const lum = ([r, g, b]) => 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
  function lightInDark() {
    const out = [];
    if (document.documentElement.dataset.theme !== 'dark') return out;
    const flagged = [];
    for (const e of document.querySelectorAll('body *')) {
      if (e.closest('svg') || flagged.some(f => f.contains(e))) continue;
      const c = parseRGB(getComputedStyle(e).backgroundColor);
      if (!c || c[3] < 0.5) continue;
      const L = lum(c);
      if (L <= THRESHOLDS.maxDarkLuminance) continue;
      const r = e.getBoundingClientRect();
      if (r.width < THRESHOLDS.minSlabPx || r.height < THRESHOLDS.minSlabPx || offPage(r) || !visible(e)) continue;
      flagged.push(e);
      out.push(defect('light-in-dark', e, {background: `rgb(${c.slice(0, 3).join(',')})`, luminance: Math.round(L * 100) / 100,
                                           max: THRESHOLDS.maxDarkLuminance, width_px: Math.round(r.width),
                                           height_px: Math.round(r.height)}));
    }
    for (const gd of figures()) {
      const fl = gd._fullLayout;
      if (!fl || flagged.some(f => f.contains(gd))) continue;
      for (const key of ['paper_bgcolor', 'plot_bgcolor']) {
        const c = toRGB(fl[key]);
        if (!c || c[3] < 0.5 || lum(c) <= THRESHOLDS.maxDarkLuminance) continue;
        out.push(defect('light-in-dark', gd, {background: fl[key], luminance: Math.round(lum(c) * 100) / 100,
                                              max: THRESHOLDS.maxDarkLuminance, layer: key, figure: figName(gd)}, figName(gd)));
        break;
      }
    }
    return out;
  }

  // -- past the viewport's right edge; a page that scrolls sideways --
  // A visible element whose right edge is past innerWidth + slack and that is not inside a box that
  // clips or scrolls it (an ancestor with overflow-x other than visible); only the outermost of
  // nested ones. And the page itself: document scrollWidth > innerWidth + slack.
  function pastRightEdge(width) {
    const out = [], W = width || window.innerWidth, flagged = [];
    for (const e of document.querySelectorAll('body *')) {
      if (flagged.some(f => f.contains(e))) continue;
      const r = e.getBoundingClientRect();
      if (r.right <= W + THRESHOLDS.slackPx || r.width < 1 || r.height < 1 || offPage(r) || !visible(e)) continue;
      let clipped = false;
      for (let a = e.parentElement; a && a !== document.body; a = a.parentElement)
        if (getComputedStyle(a).overflowX !== 'visible') { clipped = true; break; }
      if (clipped) continue;
      flagged.push(e);
      out.push(defect('past-right-edge', e, {right_px: Math.round(r.right), viewport_px: W, left_px: Math.round(r.left)}));
    }
    const sw = document.documentElement.scrollWidth;
    if (sw > W + THRESHOLDS.slackPx)
      out.push(defect('page-scrolls-sideways', document.documentElement, {scroll_width_px: sw, viewport_px: W}, ''));
    return out;
  }

  // -- more than one search box at once --
  // Search fields shown (a box, not display: none, visibility: hidden or in a closed dialog):
  // input[type=search], input[name=q], and the theme's search buttons drawn as a field
  // (button.search-button-field). More than one shown at once is a defect, wherever each is scrolled
  // to (the sidebar's own scroll can hide its field until the reader scrolls the sidebar up).
  function duplicateSearch() {
    const boxes = [...document.querySelectorAll('input[type="search"], input[name="q"], .search-button-field')]
      .filter(e => visible(e) && !(e.closest('dialog') && !e.closest('dialog').open))
      .filter(e => { const r = e.getBoundingClientRect(); return r.width > 1 && r.height > 1; });
    const fields = boxes.filter(e => !boxes.some(o => o !== e && o.contains(e)));
    if (fields.length <= 1) return [];
    return [defect('duplicate-search', fields[0], {visible: fields.length, elements: fields.map(path)}, '')];
  }

  // -- figure text against figure text --
  // Each pair of visible texts of one plotly figure that collide or run together (a label over a
  // label, a legend entry under an axis title, a panel's x title on the next panel's title, two
  // ticks meeting at a corner). Letters are measured by their ink: each character's
  // actualBoundingBox (canvas measureText, in its own computed font) at its start position on the
  // baseline (getStartPositionOfChar), carried to the screen by the text's transform. A pair collides:
  // - touch: a letter of each overlap or come within touchPx, in any direction (anti-aliased edges
  //   meet). Text turned by other than a right angle (itself a defect) is judged by this alone.
  // - side by side: level, in one row (letters' heights overlap by over touchPx), closer across
  //   than a word space of the smaller font: they read as one phrase.
  // - stacked: level, one over the other (line boxes' widths overlap by over touchPx), the line
  //   boxes nearer than plotly sets one label's lines (1.3 em apart, less a line box's height): they
  //   read as one label. Not between two ticks of one axis or two entries of one legend (lists).
  const canvas2d = document.createElement('canvas').getContext('2d'), inkCache = new Map();
  const cssFont = cs => `${cs.fontStyle} ${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
  function ink(ch, font) {      // [left, right, top, bottom] of ch's ink around its origin on the baseline; advance
    const key = font + '\u0000' + ch, c = canvas2d;
    if (!inkCache.has(key)) {
      Object.assign(c, {font, textAlign: 'left', textBaseline: 'alphabetic'});
      const m = c.measureText(ch);
      inkCache.set(key, [-m.actualBoundingBoxLeft, m.actualBoundingBoxRight, -m.actualBoundingBoxAscent,
                         m.actualBoundingBoxDescent, m.width]);
    }
    return inkCache.get(key);
  }
  // t's letters: {quad: 4 screen points, box: [left, right, top, bottom] on screen}
  function glyphBoxes(t) {
    const m = t.getScreenCTM(), n = t.getNumberOfChars(), text = t.textContent;
    if (!m || !n) return [];
    const at = n === text.length ? textIndex(t) : null;   // else whitespace was collapsed: extents instead
    const pt = (x, y) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f];
    const out = [];
    for (let i = 0; i < n; i++) {
      if (at && !text[i].trim()) continue;
      const p = at ? t.getStartPositionOfChar(i) : null, e = at ? null : t.getExtentOfChar(i);
      const [l, r, top, bottom] = at ? ink(text[i], cssFont(getComputedStyle(at(i)[0].parentElement))) : [];
      const [x0, x1, y0, y1] = at ? [p.x + l, p.x + r, p.y + top, p.y + bottom] : [e.x, e.x + e.width, e.y, e.y + e.height];
      const quad = [pt(x0, y0), pt(x1, y0), pt(x1, y1), pt(x0, y1)], xs = quad.map(q => q[0]), ys = quad.map(q => q[1]);
      const box = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
      if (box[1] - box[0] >= 0.3 && box[3] - box[2] >= 0.3) out.push({quad, box});   // not a hidden slice's, drawn at no size
    }
    return out;
  }
  function separation(P, Q) {   // the largest gap between two convex polygons along their edge normals (< 0: overlap)
    let most = -Infinity;
    for (const poly of [P, Q]) {
      for (let i = 0; i < 2; i++) {
        const dx = poly[i + 1][0] - poly[i][0], dy = poly[i + 1][1] - poly[i][1], len = Math.hypot(dx, dy);
        if (len < 1e-6) continue;
        const a = P.map(([x, y]) => (x * -dy + y * dx) / len), b = Q.map(([x, y]) => (x * -dy + y * dx) / len);
        most = Math.max(most, Math.min(...a) - Math.max(...b), Math.min(...b) - Math.max(...a));
      }
    }
    return most;
  }
  const gapAcross = (a, b, i) => Math.max(a[i] - b[i + 1], b[i] - a[i + 1]);   // i = 0: left-right, 2: top-bottom; < 0: overlap
  const painted = e => { const cs = getComputedStyle(e);
    return cs.fill !== 'none' && parseFloat(cs.fillOpacity) > 0 && !/rgba\([^)]*,\s*0\)$/.test(cs.fill); };
  // the list a text is one item of: an axis's ticks (the parent of plotly's g.xtick, g.y2tick, ...), a legend
  const list = t => { const k = t.closest('[class*="tick"]'); return k ? k.parentElement : (t.closest('.legend') || t); };
  function textInfo(t) {
    const m = t.getScreenCTM(), cs = getComputedStyle(t), scale = m ? Math.hypot(m.a, m.b) : 1, r = t.getBoundingClientRect();
    const lines = Math.max(1, t.querySelectorAll('tspan.line').length), px = parseFloat(cs.fontSize) * scale;
    const angle = m ? Math.atan2(m.b, m.a) * 180 / Math.PI : 0;
    return {t, r, line: [r.left, r.right, r.top, r.bottom], list: list(t), level: Math.abs(angle) <= THRESHOLDS.maxAngleDeg,
            lineGap: 1.3 * px - r.height / lines, space: ink(' ', cssFont(cs))[4] * scale, glyphs: null};
  }
  function collision(A, B) {    // {how, gap_px, min_px} of the pair's closest collision, else null
    const T = THRESHOLDS.touchPx, level = A.level && B.level, space = Math.min(A.space, B.space);
    A.glyphs = A.glyphs || glyphBoxes(A.t); B.glyphs = B.glyphs || glyphBoxes(B.t);
    let worst = null;
    for (const a of A.glyphs) for (const b of B.glyphs) {
      const dx = gapAcross(a.box, b.box, 0), dy = gapAcross(a.box, b.box, 2);
      const touch = !level ? separation(a.quad, b.quad)
        : (dx < 0 && dy < 0 ? Math.max(dx, dy) : Math.hypot(Math.max(dx, 0), Math.max(dy, 0)));
      let c = touch < T ? {how: touch < 0 ? 'overlap' : 'touch', gap_px: Math.round(touch * 100) / 100, min_px: T} : null;
      if (!c && level && dy < -T && dx < space) c = {how: 'side by side', gap_px: r1(dx), min_px: r1(space)};
      if (c && (!worst || c.gap_px < worst.gap_px)) worst = c;
    }
    const mid = x => (x.line[2] + x.line[3]) / 2, above = (P, Q) => mid(P) < Q.line[2] && Q.line[3] > P.line[3];
    if (!worst && level && A.list !== B.list && gapAcross(A.line, B.line, 0) < -T && (above(A, B) || above(B, A))) {
      const gap = gapAcross(A.line, B.line, 2), limit = Math.min(A.lineGap, B.lineGap);
      if (gap < limit) worst = {how: 'stacked', gap_px: r1(gap), min_px: r1(limit)};
    }
    return worst;
  }
  function collidingText() {
    const out = [];
    for (const gd of figures()) {
      const texts = [...gd.querySelectorAll('svg.main-svg text')].filter(t => t.textContent.trim() && visible(t) && painted(t))
        .map(textInfo).filter(x => x.r.width >= 0.5 && x.r.height >= 0.5);
      for (let i = 0; i < texts.length; i++) {
        for (let j = i + 1; j < texts.length; j++) {
          const [A, B] = [texts[i], texts[j]], reach = Math.max(A.lineGap, B.lineGap, A.space, B.space, THRESHOLDS.touchPx);
          if (gapAcross(A.line, B.line, 0) >= reach || gapAcross(A.line, B.line, 2) >= reach) continue;
          if (A.t.contains(B.t) || B.t.contains(A.t)) continue;
          const c = collision(A, B);
          if (c)
            out.push(defect('colliding-figure-text', A.t, {...c, texts: [short(A.t.textContent, 30), short(B.t.textContent, 30)],
                                                           roles: [textRole(A.t), textRole(B.t)], figure: figName(gd)},
                            `${short(A.t.textContent, 30)} × ${short(B.t.textContent, 30)}`));
        }
      }
    }
    return out;
  }

  // -- data marks that vanish into their plot --
  // Each trace's drawn lines (.scatterlayer path.js-line), markers (path.point), bars (.barlayer
  // paths) and box-plot boxes (path.box): each paint (computed fill; stroke if 0.5 px wide or more),
  // as transparent as its fill- or stroke-opacity times its and its groups' opacity, laid over the
  // plot (plot_bgcolor over paper_bgcolor over the page), against the plot: the WCAG contrast ratio,
  // and the distance in CIELAB's a*b* plane (hue and saturation, lightness aside). A mark vanishes
  // when no paint reaches minMarkContrast or minMarkChroma (grey on grey, too near in lightness); a
  // trace with such marks of one kind is a defect. Grid lines, shapes, legend swatches and heat
  // maps' images are not judged.
  const contrast = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
  const over = (c, alpha, bg) => [0, 1, 2].map(i => c[i] * alpha + bg[i] * (1 - alpha));
  const lab = c => {            // sRGB 0-255 to CIELAB (D65)
    const [r, g, b] = c.slice(0, 3).map(linear), f = v => v > 216 / 24389 ? Math.cbrt(v) : (24389 / 27 * v + 16) / 116;
    const [x, y, z] = [(0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047, 0.2126 * r + 0.7152 * g + 0.0722 * b,
                       (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883].map(f);
    return [116 * y - 16, 500 * (x - y), 200 * (y - z)];
  };
  const chroma = (a, b) => { const [p, q] = [lab(a), lab(b)]; return Math.hypot(p[1] - q[1], p[2] - q[2]); };
  const pageBackground = e => { const chain = []; for (let a = e; a; a = a.parentElement) chain.unshift(a);
    const paint = (bg, a) => { const c = parseRGB(getComputedStyle(a).backgroundColor); return c && c[3] > 0 ? over(c, c[3], bg) : bg; };
    return chain.reduce(paint, [255, 255, 255]); };
  function bestPaint(e, bg, stop) {   // {k: contrast, dc: a*b* distance, seen, color, alpha} of e's most visible paint
    const cs = getComputedStyle(e);
    let op = 1, best = null;
    for (let a = e; a && a !== stop; a = a.parentElement) op *= parseFloat(getComputedStyle(a).opacity);
    for (const [col, o, w] of [[cs.fill, cs.fillOpacity, 1], [cs.stroke, cs.strokeOpacity, parseFloat(cs.strokeWidth)]]) {
      const c = parseRGB(col), alpha = c ? c[3] * parseFloat(o) * op : 0;
      if (!(w >= 0.5) || !(alpha > 0)) continue;
      const seenAs = over(c, alpha, bg), k = contrast(seenAs, bg), dc = chroma(seenAs, bg);
      const p = {k, dc, seen: k >= THRESHOLDS.minMarkContrast || dc >= THRESHOLDS.minMarkChroma,
                 color: `rgb(${c.slice(0, 3).join(',')})`, alpha};
      if (!best || (p.seen && !best.seen) || (p.seen === best.seen && k > best.k)) best = p;
    }
    return best;
  }
  const MARKS = [['line', '.scatterlayer g.trace path.js-line'], ['marker', '.scatterlayer g.trace path.point'],
                 ['bar', '.barlayer g.trace path'], ['box', '.boxlayer g.trace path.box']];
  function faintMarks() {
    const out = [], r2 = v => Math.round(v * 100) / 100;
    for (const gd of figures()) {
      const fl = gd._fullLayout;
      if (!fl) continue;
      let bg = pageBackground(gd);
      for (const key of ['paper_bgcolor', 'plot_bgcolor']) { const c = toRGB(fl[key]); if (c && c[3] > 0) bg = over(c, c[3], bg); }
      for (const [mark, sel] of MARKS) {
        const byTrace = new Map();
        for (const p of gd.querySelectorAll(sel)) {
          const b = visible(p) && p.getBBox(), paint = b && (b.width >= 0.5 || b.height >= 0.5) && bestPaint(p, bg, gd);
          if (!paint) continue;
          const g = p.closest('g.trace'), s = byTrace.get(g) || {n: 0, faint: 0, worst: null};
          byTrace.set(g, s); s.n += 1;
          if (!paint.seen) { s.faint += 1; if (!s.worst || paint.k < s.worst.k) s.worst = paint; }
        }
        for (const [g, s] of [...byTrace].filter(([, s]) => s.faint)) {
          const tr = g.__data__ && g.__data__[0] && g.__data__[0].trace, name = short((tr && tr.name) || '', 30);
          out.push(defect('faint-mark', g, {contrast: r2(s.worst.k), min: THRESHOLDS.minMarkContrast, chroma: r2(s.worst.dc),
                                            min_chroma: THRESHOLDS.minMarkChroma, colour: s.worst.color, alpha: r2(s.worst.alpha),
                                            background: `rgb(${bg.map(Math.round).join(',')})`, mark,
                                            faint: s.faint, of: s.n, trace: name, figure: figName(gd)}, name));
        }
      }
    }
    return out;
  }

  const CHECKS = {figureText, thinMarks, wideBlocks, wrappedCode, lightInDark, pastRightEdge, duplicateSearch,
                  collidingText, faintMarks};
  const KINDS = ['small-figure-text', 'rotated-figure-text', 'thin-mark', 'wide-block', 'wrapped-code-line',
                 'light-in-dark', 'past-right-edge', 'page-scrolls-sideways', 'duplicate-search',
                 'colliding-figure-text', 'faint-mark'];
  // width: the device's width in CSS px (on a phone, content wider than the screen widens the
  // layout viewport, and innerWidth with it: the edge is the screen's)
  function run(width) {
    const out = [];
    for (const [name, f] of Object.entries(CHECKS)) {
      try { out.push(...f(width)); }
      catch (err) { out.push({kind: 'check-error', element: name, text: short(String(err), 120), section: '', numbers: {}}); }
    }
    return out;
  }
  return {run, KINDS, THRESHOLDS, SCROLL_CUE_CLASS};
})();
