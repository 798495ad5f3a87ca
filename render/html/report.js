/* osprof HTML report: grid, graph, heat map, tree and diff views over the
 * profile data embedded as JSON in <script id="osprof-data">. Plain DOM and
 * SVG, no libraries, so the report works offline. Embedded at build time by
 * mk/views.mk; see docs/views.md for the data layout. */
'use strict';
(function () {
	const D = JSON.parse(document.getElementById('osprof-data').textContent);
	const A = D.a, B = D.b;
	const SVGNS = 'http://www.w3.org/2000/svg';
	const $ = (sel, root) => (root || document).querySelector(sel);
	const state = { view: 'grid', sel: A.profiles.length ? 0 : -1, sortKey: 'total', sortDir: -1, filter: '', log: true, diffSel: 0 };

	/* ---------- formatting ---------- */
	function fmt(v, unit) {
		if (v === 0) return '0';
		if (v === null || v === undefined || !isFinite(v)) return '-';
		if (unit === 'bytes') {
			const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
			let i = 0;
			while (i < u.length - 1 && v >= 1024) { v /= 1024; i++; }
			return prec(v) + u[i];
		}
		if (unit === 'count') return prec(v);
		const u = ['ns', 'µs', 'ms', 's'];
		let i = 0;
		while (i < 3 && v >= 1000) { v /= 1000; i++; }
		return prec(v) + u[i];
	}
	function prec(v) { return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1).replace(/\.0$/, '') : v.toFixed(2).replace(/\.?0+$/, ''); }
	function num(n) { return Number(n).toLocaleString('en-US'); }
	function pct(x) { return (100 * x).toFixed(x >= 0.1 ? 0 : 1) + '%'; }
	function esc(s) { return String(s).replace(/[&<>"]/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c])); }
	function dims(p) { return Object.keys(p.d).map(k => k + '=' + p.d[k]).join(' '); }
	function label(p) { const d = dims(p); return p.l + ':' + p.o + (d ? ' ' + d : ''); }
	function el(tag, attrs, parent) {
		const e = document.createElementNS(SVGNS, tag);
		for (const k in attrs) e.setAttribute(k, attrs[k]);
		if (parent) parent.appendChild(e);
		return e;
	}
	function bucketsOf(p) {
		const m = new Map();
		p.b.forEach((c, i) => { if (c) m.set(p.f + i, c); });
		return m;
	}
	function edgeLabel(set, i, unit) {
		const n = set.edges.length;
		if (i === 0) return '0';
		if (i === n - 1) return 'overflow';
		return fmt(set.edges[i], unit) + ' – ' + fmt(set.edges[i + 1], unit);
	}

	/* ---------- header and tabs ---------- */
	function header() {
		$('#title').textContent = 'osprof report: ' + A.name + (B ? '  vs  ' + B.name : '');
		const m = new Map(A.meta);
		const parts = [];
		for (const k of ['command', 'host', 'kernel', 'layers', 'start_time', 'duration_ns']) {
			if (m.has(k)) parts.push(k === 'duration_ns' ? 'duration ' + fmt(Number(m.get(k)), 'ns') : k + ' ' + m.get(k));
		}
		parts.push(A.profiles.length + ' profiles', 'r=' + A.r);
		if (A.slice_ns) parts.push('slices of ' + fmt(A.slice_ns, 'ns'));
		$('#meta').textContent = parts.join(' · ');
		if (!B) $('#tab-diff').disabled = true;
		if (!A.heat) $('#tab-heat').disabled = true;
	}
	const VIEWS = ['grid', 'graph', 'heat', 'tree', 'diff'];
	function show(view) {
		const tab = $('#tab-' + view);
		if (!tab || tab.disabled) return;
		state.view = view;
		for (const v of VIEWS) {
			$('#tab-' + v).setAttribute('aria-selected', v === view ? 'true' : 'false');
			$('#tab-' + v).tabIndex = v === view ? 0 : -1;
			$('#view-' + v).hidden = v !== view;
		}
		render();
	}
	function render() {
		if (state.view === 'grid') { renderGrid(); reveal(state.sel); select(state.sel); }
		else if (state.view === 'graph') renderGraph();
		else if (state.view === 'heat') renderHeat();
		else if (state.view === 'tree') renderTree();
		else if (state.view === 'diff') renderDiff();
	}

	/* ---------- grid ---------- */
	const COLS = [
		{ key: 'layer', title: 'Layer', get: p => p.l },
		{ key: 'op', title: 'Op', get: p => p.o },
		{ key: 'dims', title: 'Dimensions', get: p => dims(p), cls: 'dims' },
		{ key: 'count', title: 'Count', get: p => p.c, num: true, show: p => num(p.c) },
		{ key: 'total', title: 'Total', get: p => p.t, num: true, show: p => fmt(p.t, p.u) },
		{ key: 'share', title: 'Share', tip: 'share of the latency of its layer (layers nest)', get: p => p.sh, num: true, bar: true, show: p => pct(p.sh) },
		{ key: 'mean', title: 'Mean', get: p => p.mean, num: true, show: p => fmt(p.mean, p.u) },
		{ key: 'p50', title: 'p50', get: p => p.p50, num: true, show: p => fmt(p.p50, p.u) },
		{ key: 'p99', title: 'p99', get: p => p.p99, num: true, show: p => fmt(p.p99, p.u) },
		{ key: 'peaks', title: 'Peaks', get: p => p.pk.length, num: true, show: p => String(p.pk.length) },
	];
	let order = [];
	function sortRows() {
		const col = COLS.find(c => c.key === state.sortKey);
		const f = state.filter.toLowerCase();
		order = A.profiles.map((p, i) => i).filter(i => !f || label(A.profiles[i]).toLowerCase().includes(f));
		/* Latency profiles first, then sizes and counts: a byte total
		 * ranked among nanoseconds would mean nothing. */
		const kind = p => p.u === 'ns' ? 0 : 1;
		order.sort((x, y) => {
			const g = kind(A.profiles[x]) - kind(A.profiles[y]);
			if (g) return g;
			const a = col.get(A.profiles[x]), b = col.get(A.profiles[y]);
			const c = col.num ? a - b : String(a).localeCompare(String(b));
			return c ? c * state.sortDir : x - y;
		});
	}
	function gridHead() {
		const tr = $('#grid thead tr');
		tr.innerHTML = COLS.map(c => '<th scope="col" tabindex="0" data-key="' + c.key + '"' + (c.tip ? ' title="' + c.tip + '"' : '') + (c.num ? ' class="num"' : '') +
			(c.key === state.sortKey ? ' aria-sort="' + (state.sortDir < 0 ? 'descending' : 'ascending') + '"' : '') + '>' + c.title + '</th>').join('');
	}
	/* Only the rows in view (plus a margin) are in the DOM: laying out a
	 * 10,000-row table takes seconds, a window of ~100 rows a few ms. */
	const MARGIN = 40;
	let ROW_H = 24; /* measured after the first render */
	let win = { first: -1, last: -1 };
	function renderGrid() {
		sortRows();
		gridHead();
		const other = order.filter(i => A.profiles[i].u !== 'ns').length;
		$('#grid-count').textContent = order.length + ' of ' + A.profiles.length + ' profiles' +
			(other ? ' (' + other + ' size/count profiles after the latencies)' : '');
		$('#grid-empty').hidden = A.profiles.length > 0;
		renderWindow(true);
	}
	function renderWindow(force) {
		const wrap = $('#grid-wrap');
		const top = wrap.scrollTop, vh = wrap.clientHeight || 800;
		const first = Math.max(0, Math.floor(top / ROW_H) - MARGIN);
		const last = Math.min(order.length, Math.ceil((top + vh) / ROW_H) + MARGIN);
		if (!force && first === win.first && last === win.last) return;
		win = { first, last };
		const rows = ['<tr class="pad" style="height:' + first * ROW_H + 'px"></tr>'];
		for (let k = first; k < last; k++) {
			const i = order[k], p = A.profiles[i];
			const brk = k > 0 && p.u !== 'ns' && A.profiles[order[k - 1]].u === 'ns';
			const cls = [i === state.sel ? 'sel' : '', brk ? 'unit-break' : ''].filter(Boolean).join(' ');
			let r = '<tr data-index="' + i + '"' + (cls ? ' class="' + cls + '"' : '') + (i === state.sel ? ' aria-selected="true"' : '') +
				(brk ? ' title="sizes and counts (not latencies) from here on"' : '') + '>';
			for (const c of COLS) {
				const v = c.show ? c.show(p) : esc(c.get(p));
				if (c.bar) r += '<td class="num bar-cell"><span style="width:' + (100 * p.sh).toFixed(1) + '%"></span><b>' + v + '</b></td>';
				else r += '<td' + (c.num ? ' class="num"' : c.cls ? ' class="' + c.cls + '"' : '') + '>' + v + '</td>';
			}
			rows.push(r + '</tr>');
		}
		rows.push('<tr class="pad" style="height:' + (order.length - last) * ROW_H + 'px"></tr>');
		$('#grid tbody').innerHTML = rows.join('');
		const tr = $('#grid tbody tr[data-index]');
		const h = tr ? tr.getBoundingClientRect().height : 0;
		if (h > 0 && Math.abs(h - ROW_H) > 0.01) { ROW_H = h; renderWindow(true); }
	}
	function select(i, scroll) {
		if (i < 0 || i >= A.profiles.length) return;
		state.sel = i;
		if (scroll) reveal(i);
		const tb = $('#grid tbody');
		const old = tb.querySelector('tr.sel');
		if (old) { old.classList.remove('sel'); old.removeAttribute('aria-selected'); }
		const tr = tb.querySelector('tr[data-index="' + i + '"]');
		if (tr) {
			tr.classList.add('sel');
			tr.setAttribute('aria-selected', 'true');
		}
	}
	/* Brings row i into the grid's window, below the sticky header; a hidden
	 * grid (another view is shown) is brought up to date when shown. */
	function reveal(i) {
		const wrap = $('#grid-wrap'), k = order.indexOf(i), head = $('#grid thead').offsetHeight;
		if (k < 0 || !wrap.clientHeight) return;
		if (k * ROW_H < wrap.scrollTop) wrap.scrollTop = k * ROW_H;
		else if ((k + 1) * ROW_H + head > wrap.scrollTop + wrap.clientHeight) wrap.scrollTop = (k + 1) * ROW_H + head - wrap.clientHeight;
		renderWindow(false);
	}
	function moveSel(d) {
		if (!order.length) return;
		let k = order.indexOf(state.sel);
		k = k < 0 ? 0 : Math.max(0, Math.min(order.length - 1, k + d));
		select(order[k], true);
	}

	/* ---------- histogram chart (graph and diff) ---------- */
	function chart(host, set, p, q, opts) {
		host.textContent = '';
		const W = 820, H = 300, ML = 64, MR = 20, MT = 30, MB = 44, w = W - ML - MR, h = H - MT - MB;
		const svg = el('svg', { class: 'chart', width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': 'histogram of ' + label(p) }, host);
		const ba = bucketsOf(p), bb = q ? bucketsOf(q) : new Map();
		let lo = Infinity, hi = -Infinity, max = 1;
		for (const m of [ba, bb]) for (const [i, c] of m) { lo = Math.min(lo, i); hi = Math.max(hi, i); max = Math.max(max, c); }
		if (lo > hi) { lo = 1; hi = 10 * set.r; }
		lo = Math.max(0, lo - 1); hi = Math.min(set.edges.length - 1, hi + 1);
		while (hi - lo < 2 * set.r) hi++;
		const X = b => ML + (b - lo) / (hi + 1 - lo) * w;
		const log = opts.log;
		const ymax = log ? Math.ceil(Math.log10(max) + 0.4) : max * 1.15;
		const Y = c => log ? MT + h - (Math.log10(Math.max(c, 0.5)) - Math.log10(0.5)) / (ymax - Math.log10(0.5)) * h : MT + h - c / ymax * h;
		el('rect', { x: ML, y: MT, width: w, height: h, fill: '#fff', stroke: '#ccc' }, svg);
		/* y axis */
		const yt = log ? Array.from({ length: ymax + 1 }, (_, e) => Math.pow(10, e)) : niceTicks(ymax);
		for (const t of yt) {
			el('line', { class: 'grid', x1: ML, x2: ML + w, y1: Y(t), y2: Y(t) }, svg);
			el('text', { class: 'ytick', x: ML - 6, y: Y(t) + 4 }, svg).textContent = num(t);
		}
		const yl = el('text', { class: 'label', transform: 'translate(16,' + (MT + h / 2) + ') rotate(-90)' }, svg);
		yl.textContent = log ? 'count (log)' : 'count (linear)';
		yl.id = opts.id ? opts.id + '-ylabel' : '';
		/* x axis: decimal values at their place on the log2 scale */
		el('line', { class: 'axis', x1: ML, x2: ML + w, y1: MT + h, y2: MT + h }, svg);
		const step = p.u === 'bytes' ? 1024 : 10;
		for (let v = 1; v < 1e20; v *= step) {
			const b = 1 + set.r * Math.log2(v);
			if (b < lo || b > hi + 1) continue;
			el('line', { class: 'grid', x1: X(b), x2: X(b), y1: MT, y2: MT + h + 4 }, svg);
			el('text', { class: 'tick', x: X(b), y: MT + h + 16 }, svg).textContent = fmt(v, p.u);
		}
		if (lo === 0) el('text', { class: 'tick', x: X(0.5), y: MT + h + 16 }, svg).textContent = '0';
		el('text', { class: 'label', x: ML + w / 2, y: H - 6 }, svg).textContent = (p.u === 'ns' ? 'latency' : p.u) + ' (log2 buckets, r=' + set.r + ')';
		/* peaks under the bars */
		for (let k = 0; k < p.pk.length; k++) {
			const pk = p.pk[k];
			const g = el('g', { class: 'peak', 'data-lo': pk[0], 'data-hi': pk[1] }, svg);
			el('rect', { x: X(pk[0]), y: MT, width: X(pk[1] + 1) - X(pk[0]), height: h }, g);
		}
		const bar = (m, cls, s) => {
			for (const [i, c] of m) {
				const x = X(i), bw = X(i + 1) - x, y = Y(c);
				const r = el('rect', { class: cls, 'data-bucket': i, 'data-count': c, x: x + (cls === 'bar' ? 0.5 : 0), y: y, width: Math.max(1, bw - (cls === 'bar' ? 1 : 0)), height: MT + h - y }, svg);
				el('title', {}, r).textContent = (s ? s + ': ' : '') + edgeLabel(set, i, p.u) + ': ' + num(c);
			}
		};
		bar(ba, 'bar', q ? 'A' : '');
		if (q) bar(bb, 'bar-b', 'B');
		for (let k = 0; k < p.pk.length; k++) {
			const pk = p.pk[k];
			const t = el('text', { class: 'peak-label', x: (X(pk[0]) + X(pk[1] + 1)) / 2, y: MT + 12 + 11 * (k % 2) }, svg);
			t.textContent = 'P' + (k + 1) + ' ' + fmt(pk[4], p.u) + ' ' + pct(pk[5]);
			if (pk[7]) el('title', {}, t).textContent = pk[7];
		}
		for (const n of p.nt || []) {
			const b = 1 + set.r * Math.log2(n[0]);
			if (b < lo || b > hi + 1) continue;
			const g = el('g', { class: 'note' }, svg);
			el('line', { x1: X(b), x2: X(b), y1: MT, y2: MT + h }, g);
			el('text', { x: X(b) + 3, y: MT + h - 6 }, g).textContent = n[1];
		}
		if (!p.c && !(q && q.c)) el('text', { class: 'label', x: ML + w / 2, y: MT + h / 2 }, svg).textContent = 'no samples';
		return svg;
	}
	function niceTicks(max) {
		const e = Math.pow(10, Math.floor(Math.log10(max))), s = max / e > 5 ? 2 * e : max / e > 2 ? e : e / 2;
		const t = [];
		for (let v = 0; v <= max; v += s) t.push(v);
		return t;
	}
	function statsBox(host, p) {
		const items = [['count', num(p.c)], ['total', fmt(p.t, p.u)], ['share of ' + p.l + ' latency', pct(p.sh)], ['mean', fmt(p.mean, p.u)],
			['p50', fmt(p.p50, p.u)], ['p99', fmt(p.p99, p.u)], ['min', p.c ? fmt(p.mn, p.u) : '-'], ['max', p.c ? fmt(p.mx, p.u) : '-']];
		p.pk.forEach((pk, k) => items.push(['peak P' + (k + 1), fmt(pk[4], p.u) + ', ' + pct(pk[5]) + ' of ops, ' + pct(pk[6]) + ' of latency' + (pk[7] ? ' (' + pk[7] + ')' : '')]));
		host.innerHTML = items.map(([k, v]) => '<div><span>' + esc(k) + '</span>' + esc(v) + '</div>').join('');
	}

	/* ---------- graph ---------- */
	function twin(set, p) {
		if (!set) return null;
		const l = label(p);
		return set.profiles.find(x => label(x) === l) || null;
	}
	function renderGraph() {
		const host = $('#graph-chart');
		if (state.sel < 0) { host.innerHTML = '<p class="empty">No profile to show.</p>'; $('#graph-title').textContent = ''; $('#graph-stats').textContent = ''; return; }
		const p = A.profiles[state.sel];
		$('#graph-title').textContent = label(p);
		$('#log-toggle').setAttribute('aria-pressed', state.log ? 'true' : 'false');
		$('#log-toggle').textContent = state.log ? 'Count: log' : 'Count: linear';
		chart(host, A, p, twin(B, p), { log: state.log, id: 'graph' });
		statsBox($('#graph-stats'), p);
	}

	/* ---------- heat map ---------- */
	function heatColour(t) {
		const s = [[68, 1, 84], [59, 82, 139], [33, 145, 140], [94, 201, 98], [253, 231, 37]];
		t = Math.max(0, Math.min(1, t)) * 4;
		const i = Math.min(3, Math.floor(t)), u = t - i;
		return 'rgb(' + s[i].map((c, k) => Math.round(c + u * (s[i + 1][k] - c))).join(',') + ')';
	}
	function renderHeat() {
		const host = $('#heat-chart'), pick = $('#heat-pick');
		const sliced = A.profiles.map((p, i) => i).filter(i => A.profiles[i].s && A.profiles[i].s.length);
		pick.innerHTML = sliced.map(i => '<option value="' + i + '">' + esc(label(A.profiles[i])) + '</option>').join('');
		let i = sliced.includes(state.sel) ? state.sel : sliced[0];
		host.textContent = '';
		if (i === undefined) { host.innerHTML = '<p class="empty">This profile set has no time slices (record with -i).</p>'; return; }
		if (A.heat < A.sliced) {
			const note = document.createElement('p');
			note.className = 'count';
			note.id = 'heat-note';
			note.textContent = 'Heat maps of the ' + A.heat + ' time-sliced profiles with the most latency, of ' + A.sliced + ' (osprof html --heatmaps N).';
			host.appendChild(note);
		}
		pick.value = String(i);
		const p = A.profiles[i];
		const rows = p.s[p.s.length - 1][0] - p.s[0][0] + 1, first = p.s[0][0];
		let lo = Infinity, hi = -Infinity, max = 1;
		for (const s of p.s) s[2].forEach((c, k) => { if (c) { lo = Math.min(lo, s[1] + k); hi = Math.max(hi, s[1] + k); max = Math.max(max, c); } });
		lo = Math.max(0, lo - 1); hi = hi + 1;
		const W = 820, ML = 70, MR = 60, MT = 10, w = W - ML - MR;
		const rh = Math.max(2, Math.min(14, 400 / rows)), h = rh * rows, H = h + MT + 40;
		const X = b => ML + (b - lo) / (hi + 1 - lo) * w;
		const svg = el('svg', { class: 'chart', width: W, height: H, viewBox: '0 0 ' + W + ' ' + H }, host);
		el('rect', { x: ML, y: MT, width: w, height: h, fill: '#f4f4f4' }, svg);
		const lmax = Math.log10(max + 1);
		for (const s of p.s) {
			const y = MT + (s[0] - first) * rh;
			s[2].forEach((c, k) => {
				if (!c) return;
				const b = s[1] + k;
				const r = el('rect', { class: 'cell', 'data-slice': s[0], 'data-bucket': b, 'data-count': c, x: X(b), y: y, width: X(b + 1) - X(b), height: rh, fill: heatColour(Math.log10(c + 1) / lmax) }, svg);
				el('title', {}, r).textContent = fmt(s[0] * A.slice_ns, 'ns') + ', ' + edgeLabel(A, b, p.u) + ': ' + num(c);
			});
		}
		const step = p.u === 'bytes' ? 1024 : 10;
		for (let v = 1; v < 1e20; v *= step) {
			const b = 1 + A.r * Math.log2(v);
			if (b < lo || b > hi + 1) continue;
			el('text', { class: 'tick', x: X(b), y: MT + h + 16 }, svg).textContent = fmt(v, p.u);
		}
		const nl = Math.min(rows, 6);
		for (let k = 0; k < nl; k++) {
			const idx = first + Math.round((rows - 1) * k / Math.max(1, nl - 1));
			el('text', { class: 'ytick', x: ML - 6, y: MT + (idx - first) * rh + rh / 2 + 4 }, svg).textContent = fmt(idx * A.slice_ns, 'ns');
		}
		el('text', { class: 'label', x: ML + w / 2, y: H - 6 }, svg).textContent = (p.u === 'ns' ? 'latency' : p.u) + ' (log2 buckets); rows: time slices of ' + fmt(A.slice_ns, 'ns') + '; colour: count (log)';
		for (let k = 0; k < 10; k++) el('rect', { x: ML + w + 10, y: MT + h - (k + 1) * h / 10, width: 12, height: h / 10, fill: heatColour(k / 9) }, svg);
		el('text', { class: 'ytick', x: W - 4, y: MT + 10 }, svg).textContent = num(max);
		el('text', { class: 'ytick', x: W - 4, y: MT + h }, svg).textContent = '1';
	}

	/* ---------- tree ---------- */
	const STACK = ['user', 'syscall', 'fs', 'block'];
	function procOf(p) {
		if (p.d.comm && p.d.pid) return p.d.comm + ' (' + p.d.pid + ')';
		if (p.d.pid) return 'pid ' + p.d.pid;
		if (p.d.comm) return p.d.comm;
		return 'all processes';
	}
	function summ(ps) { let c = 0, t = 0; for (const p of ps) { c += p.c; t += p.u === 'ns' ? p.t : 0; } return num(c) + ' ops · ' + fmt(t, 'ns'); }
	/* Leaves leave out what their process node already says. */
	function leaf(p, i, inProc) {
		const d = Object.keys(p.d).filter(k => !(inProc && (k === 'pid' || k === 'comm'))).map(k => k + '=' + p.d[k]).join(' ');
		return '<div class="leaf" tabindex="0" data-index="' + i + '"><span class="layer-tag">' + esc(p.l) + '</span> ' + esc(p.o) +
			(d ? ' <span class="n">' + esc(d) + '</span>' : '') + '<span class="n">' + num(p.c) + ' ops · ' + fmt(p.t, p.u) + '</span></div>';
	}
	function renderTree() {
		const host = $('#tree-root');
		if (!A.profiles.length && !D.rc) { host.innerHTML = '<p class="empty">No profiles.</p>'; return; }
		const procs = new Map();
		A.profiles.forEach((p, i) => {
			if (p.d.path !== undefined) return; /* root-cause paths get their own tree */
			const k = procOf(p);
			if (!procs.has(k)) procs.set(k, []);
			procs.get(k).push(i);
		});
		const byTotal = (x, y) => A.profiles[y].t - A.profiles[x].t;
		let html = '';
		for (const [name, idx] of procs) {
			const ps = idx.map(i => A.profiles[i]);
			/* Layers nest, so the process total is its outermost layer's. */
			const outer = STACK.find(l => ps.some(p => p.l === l));
			const top = outer ? ps.filter(p => p.l === outer) : ps;
			html += '<details' + (procs.size <= 20 ? ' open' : '') + ' class="proc"><summary><b>' + esc(name) + '</b><span class="n">' + summ(top) +
				(outer ? ' (' + esc(outer) + ' layer)' : '') + '</span></summary>';
			/* Layers nest in call order: user -> system call -> file system -> block. */
			const layers = new Map();
			for (const i of idx) { const l = A.profiles[i].l; if (!layers.has(l)) layers.set(l, []); layers.get(l).push(i); }
			const stacked = STACK.filter(l => layers.has(l)), others = [...layers.keys()].filter(l => !STACK.includes(l)).sort();
			let close = '';
			for (const l of stacked) {
				const li = layers.get(l).sort(byTotal);
				html += '<details' + (idx.length <= 100 ? ' open' : '') + ' class="layer" data-layer="' + esc(l) + '"><summary><span class="layer-tag">' + esc(l) + '</span><span class="n">' + summ(li.map(i => A.profiles[i])) + '</span></summary>';
				html += li.map(i => leaf(A.profiles[i], i, true)).join('');
				close += '</details>';
			}
			html += close;
			for (const l of others) {
				const li = layers.get(l).sort(byTotal);
				html += '<details class="layer" data-layer="' + esc(l) + '"><summary><span class="layer-tag">' + esc(l) + '</span><span class="n">' + summ(li.map(i => A.profiles[i])) + '</span></summary>' +
					li.map(i => leaf(A.profiles[i], i, true)).join('') + '</details>';
			}
			html += '</details>';
		}
		html += rootCauseTree();
		host.innerHTML = html;
	}
	/* Root-cause results: profiles with a "path" dimension holding a call
	 * path, frames separated by ';' (outermost first), and the folded call
	 * stacks given with --rootcause (counts only), merged into one tree. */
	function rootCauseTree() {
		const paths = A.profiles.map((p, i) => i).filter(i => A.profiles[i].d.path !== undefined);
		const folded = D.rc ? D.rc.paths : [];
		if (!paths.length && !folded.length) return '';
		const root = { kids: new Map(), items: [], c: 0, t: 0 };
		const descend = (path, c, t) => {
			let n = root;
			for (const f of String(path).split(';').filter(Boolean)) {
				if (!n.kids.has(f)) n.kids.set(f, { kids: new Map(), items: [], c: 0, t: 0 });
				n = n.kids.get(f);
				n.c += c; n.t += t;
			}
			return n;
		};
		for (const i of paths) descend(A.profiles[i].d.path, A.profiles[i].c, A.profiles[i].t).items.push(i);
		for (const [path, c] of folded) descend(path, c, 0);
		const walk = n => [...n.kids].sort((x, y) => (y[1].t - x[1].t) || (y[1].c - x[1].c)).map(([f, k]) =>
			'<details open class="frame"><summary>' + esc(f) + '<span class="n">' + num(k.c) + ' ops' + (k.t ? ' · ' + fmt(k.t, 'ns') : '') + '</span></summary>' +
			k.items.map(i => leaf(A.profiles[i], i)).join('') + walk(k) + '</details>').join('');
		return '<h2>Root-cause call paths' + (D.rc && D.rc.name ? ' <span class="n">(' + esc(D.rc.name) + ')</span>' : '') + '</h2><div class="rctree">' + walk(root) + '</div>';
	}

	/* ---------- diff ---------- */
	function renderDiff() {
		const tb = $('#diff tbody');
		if (!B) return;
		tb.innerHTML = D.diff.map((d, k) => {
			const pa = d.a >= 0 ? A.profiles[d.a] : null, pb = d.b >= 0 ? B.profiles[d.b] : null, p = pa || pb;
			return '<tr data-rank="' + k + '"' + (k === state.diffSel ? ' class="sel" aria-selected="true"' : '') + '><td class="num">' + (k + 1) + '</td><td>' + esc(label(p)) +
				'</td><td class="num diffscore">' + d.score.toFixed(1) + '</td><td class="verdict-' + esc(d.verdict) + '">' + esc(d.verdict.replace(/_/g, ' ')) + '</td><td>' + esc(d.reason) +
				'</td><td class="num">' + (pa ? num(pa.c) : '-') + '</td><td class="num">' + (pb ? num(pb.c) : '-') + '</td><td class="num">' + (pa ? fmt(pa.t, pa.u) : '-') +
				'</td><td class="num">' + (pb ? fmt(pb.t, pb.u) : '-') + '</td></tr>';
		}).join('');
		$('#diff-empty').hidden = D.diff.length > 0;
		diffChart();
	}
	function diffChart() {
		const d = D.diff[state.diffSel], host = $('#diff-chart');
		if (!d) { host.textContent = ''; return; }
		const pa = d.a >= 0 ? A.profiles[d.a] : null, pb = d.b >= 0 ? B.profiles[d.b] : null;
		const empty = { l: (pa || pb).l, o: (pa || pb).o, d: (pa || pb).d, u: (pa || pb).u, c: 0, t: 0, f: 0, b: [], pk: [] };
		$('#diff-title').textContent = label(pa || pb) + ' — ' + d.reason;
		chart(host, A, pa || empty, pb || empty, { log: state.log, id: 'diff' });
	}
	function moveDiff(dlt) {
		if (!B || !D.diff.length) return;
		state.diffSel = Math.max(0, Math.min(D.diff.length - 1, state.diffSel + dlt));
		const tb = $('#diff tbody');
		for (const tr of tb.querySelectorAll('tr.sel')) { tr.classList.remove('sel'); tr.removeAttribute('aria-selected'); }
		const tr = tb.querySelector('tr[data-rank="' + state.diffSel + '"]');
		if (tr) { tr.classList.add('sel'); tr.setAttribute('aria-selected', 'true'); tr.scrollIntoView({ block: 'nearest' }); }
		diffChart();
	}

	/* ---------- events ---------- */
	function bind() {
		for (const v of VIEWS) $('#tab-' + v).addEventListener('click', () => show(v));
		$('#grid thead').addEventListener('click', e => sortBy(e.target.closest('th')));
		$('#grid thead').addEventListener('keydown', e => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sortBy(e.target.closest('th')); } });
		$('#grid tbody').addEventListener('click', e => { const tr = e.target.closest('tr'); if (tr) select(Number(tr.dataset.index)); });
		$('#grid tbody').addEventListener('dblclick', e => { const tr = e.target.closest('tr'); if (tr) { select(Number(tr.dataset.index)); show('graph'); } });
		$('#filter').addEventListener('input', e => { state.filter = e.target.value; $('#grid-wrap').scrollTop = 0; renderGrid(); });
		$('#grid-wrap').addEventListener('scroll', () => renderWindow(false));
		$('#log-toggle').addEventListener('click', () => { state.log = !state.log; render(); });
		$('#heat-pick').addEventListener('change', e => { state.sel = Number(e.target.value); renderHeat(); });
		$('#tree-root').addEventListener('click', e => { const l = e.target.closest('.leaf'); if (l) { select(Number(l.dataset.index)); show('graph'); } });
		$('#diff tbody').addEventListener('click', e => { const tr = e.target.closest('tr'); if (tr) { state.diffSel = Number(tr.dataset.rank); moveDiff(0); } });
		document.addEventListener('keydown', onKey);
	}
	function sortBy(th) {
		if (!th) return;
		const k = th.dataset.key;
		if (state.sortKey === k) state.sortDir = -state.sortDir;
		else { state.sortKey = k; state.sortDir = COLS.find(c => c.key === k).num ? -1 : 1; }
		renderGrid();
		const nth = $('#grid thead th[data-key="' + k + '"]');
		if (nth) nth.focus();
	}
	function onKey(e) {
		if (e.ctrlKey || e.metaKey || e.altKey) return;
		const t = e.target;
		const typing = t.tagName === 'INPUT' || t.tagName === 'SELECT';
		if (typing) { if (e.key === 'Escape') t.blur(); if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp' && e.key !== 'Enter') return; }
		if (t.classList && t.classList.contains('leaf') && e.key === 'Enter') { select(Number(t.dataset.index)); show('graph'); e.preventDefault(); return; }
		if (t.tagName === 'SUMMARY' && (e.key === 'Enter' || e.key === ' ')) return;
		const n = '12345'.indexOf(e.key);
		if (n >= 0 && !typing) { show(VIEWS[n]); e.preventDefault(); return; }
		switch (e.key) {
		case '/': if (state.view !== 'grid') show('grid'); $('#filter').focus(); e.preventDefault(); break;
		case 'l': if (!typing) { state.log = !state.log; render(); } break;
		case 'PageDown': case 'PageUp':
			if (state.view === 'grid') { moveSel((e.key === 'PageDown' ? 1 : -1) * Math.max(1, Math.floor($('#grid-wrap').clientHeight / ROW_H) - 1)); e.preventDefault(); }
			break;
		case 'Home': case 'End':
			if (state.view === 'grid' && !typing) { moveSel(e.key === 'End' ? order.length : -order.length); e.preventDefault(); }
			break;
		case 'ArrowDown': case 'j':
			if (t.getAttribute && t.getAttribute('role') === 'tab') break;
			if (state.view === 'diff') moveDiff(1); else if (state.view === 'grid') moveSel(1); else if (state.view === 'graph') { moveSel(1); renderGraph(); } else break;
			e.preventDefault(); break;
		case 'ArrowUp': case 'k':
			if (state.view === 'diff') moveDiff(-1); else if (state.view === 'grid') moveSel(-1); else if (state.view === 'graph') { moveSel(-1); renderGraph(); } else break;
			e.preventDefault(); break;
		case 'ArrowRight': case 'ArrowLeft':
			if (t.getAttribute && t.getAttribute('role') === 'tab') {
				const avail = VIEWS.filter(v => !$('#tab-' + v).disabled);
				const k = (avail.indexOf(state.view) + (e.key === 'ArrowRight' ? 1 : avail.length - 1)) % avail.length;
				show(avail[k]); $('#tab-' + avail[k]).focus(); e.preventDefault();
			}
			break;
		case 'Enter':
			if (state.view === 'grid' && state.sel >= 0 && !(t.tagName === 'TH' || t.tagName === 'BUTTON')) { show('graph'); e.preventDefault(); }
			break;
		case 'Escape': if (state.view !== 'grid') show('grid'); break;
		}
	}

	header();
	bind();
	renderGrid();
	if (order.length) state.sel = order[0]; /* the profile with the most latency */
	show('grid');
	window.osprofReady = true;
	window.osprofReadyMs = performance.now();
	document.body.dataset.ready = 'true';
})();
