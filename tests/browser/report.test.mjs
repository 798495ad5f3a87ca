// Drives the Debian chromium (headless, through Playwright) over osprof HTML
// reports and asserts on the DOM after mouse and keyboard interaction.
// usage: node report.test.mjs ARTIFACT_DIR NAME=REPORT.html ...
//   NAMEs it knows: diff (A vs B, sliced, with root-cause paths), big
//   (1,000 profiles), huge (10,000), empty (no profiles), single (one
//   bucket), r4 (resolution 4), sizes (byte-size profiles beside latencies).
//   Screenshots go to ARTIFACT_DIR.
// Prints "ok NAME" / "not ok NAME: why" per check; exits 1 on any failure.
import { chromium } from 'playwright-core';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [artifacts, ...specs] = process.argv.slice(2);
if (!artifacts || !specs.length) {
	console.error('usage: node report.test.mjs ARTIFACT_DIR NAME=REPORT.html ...');
	process.exit(2);
}
const reports = Object.fromEntries(specs.map(s => s.split('=')).map(([k, v]) => [k, resolve(v)]));
let failures = 0;
function check(name, cond, why) {
	if (cond) console.log('ok ' + name);
	else { failures++; console.log('not ok ' + name + (why ? ': ' + why : '')); }
}

const profileDir = mkdtempSync(join(tmpdir(), 'osprof-chromium-'));
const ctx = await chromium.launchPersistentContext(profileDir, {
	executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
	headless: true,
	viewport: { width: 1200, height: 800 },
	args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
		'--disable-background-networking', '--disable-component-update', '--disable-sync'],
});

async function open(name) {
	const page = await ctx.newPage();
	const errors = [], external = [];
	page.on('pageerror', e => errors.push(String(e)));
	page.on('console', m => { if (m.type() === 'error') errors.push(m.text()); });
	const url = pathToFileURL(reports[name]).href;
	page.on('request', r => { if (r.url() !== url && !r.url().startsWith('data:')) external.push(r.url()); });
	await page.goto(url);
	await page.waitForFunction(() => window.osprofReady === true, null, { timeout: 20000 });
	return { page, errors, external };
}
const data = page => page.evaluate(() => JSON.parse(document.getElementById('osprof-data').textContent));
const rowIndexes = page => page.$$eval('#grid tbody tr[data-index]', trs => trs.map(t => Number(t.dataset.index)));
const visible = (page, id) => page.$eval(id, e => !e.hidden);
const shot = (page, file) => page.screenshot({ path: join(artifacts, file), fullPage: true });
const nonIncreasing = v => v.every((x, i) => i === 0 || v[i - 1] >= x);
const nonDecreasing = v => v.every((x, i) => i === 0 || v[i - 1] <= x);
const label = p => p.l + ':' + p.o + Object.keys(p.d).map(k => ' ' + k + '=' + p.d[k]).join('');

async function testDiff() {
	const { page, errors, external } = await open('diff');
	const D = await data(page);
	let rows = await rowIndexes(page);
	check('diff: grid has one row per profile', rows.length === D.a.profiles.length &&
		(await page.textContent('#grid-count')) === rows.length + ' of ' + rows.length + ' profiles', rows.length + ' rows');
	check('diff: grid sorted by total latency at first', nonIncreasing(rows.map(i => D.a.profiles[i].t)));
	await shot(page, 'report-grid.png');

	// Sort by count with the mouse: descending, then ascending.
	await page.click('#grid th[data-key=count]');
	rows = await rowIndexes(page);
	check('diff: click Count sorts descending', nonIncreasing(rows.map(i => D.a.profiles[i].c)) &&
		(await page.getAttribute('#grid th[data-key=count]', 'aria-sort')) === 'descending');
	await page.click('#grid th[data-key=count]');
	rows = await rowIndexes(page);
	check('diff: second click sorts ascending', nonDecreasing(rows.map(i => D.a.profiles[i].c)) &&
		(await page.getAttribute('#grid th[data-key=count]', 'aria-sort')) === 'ascending');
	// Sort by op from the keyboard.
	await page.focus('#grid th[data-key=op]');
	await page.keyboard.press('Enter');
	rows = await rowIndexes(page);
	const ops = rows.map(i => D.a.profiles[i].o);
	check('diff: Enter on Op header sorts by name', ops.every((x, i) => i === 0 || ops[i - 1].localeCompare(x) <= 0));

	// Select with the mouse, move with the keyboard, open the graph with Enter.
	await page.click('#grid tbody tr[data-index] >> nth=1');
	await page.focus('#grid tbody');
	await page.keyboard.press('ArrowDown');
	const sel = await page.$eval('#grid tbody tr.sel', t => Number(t.dataset.index));
	check('diff: ArrowDown selects the next row', sel === rows[2], 'selected ' + sel + ', want ' + rows[2]);
	await page.keyboard.press('Enter');
	check('diff: Enter opens the graph view', await visible(page, '#view-graph') && !(await visible(page, '#view-grid')));
	const p = D.a.profiles[sel];
	check('diff: graph title names the selected profile', (await page.textContent('#graph-title')) === label(p));
	const bars = await page.$$eval('#graph-chart rect.bar', rs => rs.map(r => Number(r.dataset.count)));
	check('diff: one bar per non-empty bucket', bars.length === p.b.filter(c => c).length, bars.length + ' bars');
	check('diff: bars add up to the count', bars.reduce((a, b) => a + b, 0) === p.c);
	check('diff: peaks drawn', (await page.$$('#graph-chart g.peak')).length === p.pk.length && p.pk.length > 0);
	check('diff: B overlaid in the graph', (await page.$$('#graph-chart rect.bar-b')).length > 0);
	await shot(page, 'report-graph-log.png');
	await page.keyboard.press('l');
	check('diff: l switches to a linear count axis', (await page.textContent('#graph-ylabel')) === 'count (linear)');
	await shot(page, 'report-graph-linear.png');
	await page.click('#log-toggle');
	check('diff: toggle button returns to log', (await page.textContent('#graph-ylabel')) === 'count (log)');

	// Heat map from the keyboard.
	await page.keyboard.press('3');
	const cells = await page.$$eval('#heat-chart rect.cell', rs => rs.map(r => Number(r.dataset.count)));
	const hp = D.a.profiles[Number(await page.$eval('#heat-pick', s => s.value))];
	const want = hp.s.reduce((a, s) => a + s[2].filter(c => c).length, 0);
	check('diff: heat map has one cell per non-empty slice bucket', cells.length === want && want > 0, cells.length + ' vs ' + want);
	check('diff: heat map cells add up to the count', cells.reduce((a, b) => a + b, 0) === hp.c);
	await shot(page, 'report-heatmap.png');

	// Tree: processes, nested layers, root-cause paths; a leaf opens the graph.
	await page.click('#tab-tree');
	const leaves = await page.$$eval('#tree-root .leaf', ls => ls.map(l => Number(l.dataset.index)));
	check('diff: tree lists every profile once', leaves.length === D.a.profiles.length && new Set(leaves).size === leaves.length);
	const nested = await page.$eval('#tree-root', r => {
		const sys = r.querySelector('details.layer[data-layer=syscall]');
		return !!(sys && sys.querySelector('details.layer[data-layer=fs] details.layer[data-layer=block]'));
	});
	check('diff: tree nests syscall > fs > block', nested);
	check('diff: root-cause call paths shown', (await page.$$('#tree-root .rctree details.frame')).length >= 4);
	// Folded stacks given with --rootcause join the same tree, counts summed per frame.
	const frames = await page.$$eval('#tree-root .rctree summary', ss => ss.map(s => s.textContent));
	const wantRc = D.rc ? D.rc.paths.filter(([p]) => p.split(';').includes('ext4_buffered_write_iter')).reduce((a, [, c]) => a + c, 0) : -1;
	check('diff: folded root-cause stacks in the tree', wantRc > 0 && frames.some(f => f === 'ext4_buffered_write_iter' + wantRc + ' ops'), frames.join('|'));
	await shot(page, 'report-tree.png');
	await page.click('#tree-root .leaf >> nth=0');
	check('diff: clicking a tree leaf opens its graph', await visible(page, '#view-graph') &&
		(await page.textContent('#graph-title')) === label(D.a.profiles[leaves[0]]));

	// Diff: ranked rows; selecting one overlays A and B.
	await page.keyboard.press('5');
	const drows = await page.$$('#diff tbody tr');
	check('diff: diff view ranks every profile', drows.length === D.diff.length && D.diff.length >= D.a.profiles.length);
	// Analysis ranks by verdict (differs, only in A, only in B, similar,
	// insignificant), then by score among the differing ones.
	const VORDER = ['differs', 'only_in_a', 'only_in_b', 'similar', 'insignificant'];
	const shown = await page.$$eval('#diff tbody tr td:nth-child(4)', ts => ts.map(t => t.textContent.replace(/ /g, '_')));
	check('diff: rows in ranking order', shown.every((v, k) => v === D.diff[k].verdict) &&
		nonDecreasing(shown.map(v => VORDER.indexOf(v))) && shown.every(v => VORDER.includes(v)), shown.join(','));
	check('diff: differing profiles ranked by score', nonIncreasing(D.diff.filter(d => d.verdict === 'differs').map(d => d.score)) &&
		D.diff.some(d => d.verdict === 'differs'));
	await page.click('#diff tbody tr:nth-child(2)');
	const d1 = D.diff[1];
	check('diff: clicking a row shows its overlay', (await page.textContent('#diff-title')).startsWith(label(d1.a >= 0 ? D.a.profiles[d1.a] : D.b.profiles[d1.b])) &&
		(await page.$$('#diff-chart rect.bar-b')).length > 0);
	await page.keyboard.press('ArrowDown');
	check('diff: ArrowDown moves down the ranking', (await page.$eval('#diff tbody tr.sel', t => Number(t.dataset.rank))) === 2);
	await shot(page, 'report-diff.png');

	// Characteristic times (from the calibration the report was made with).
	const ci = D.a.profiles.findIndex(p => p.nt.length > 0);
	check('diff: some profile has characteristic-time notes', ci >= 0);
	if (ci >= 0) {
		await page.keyboard.press('Escape');
		await page.fill('#filter', label(D.a.profiles[ci]));
		await page.click('#grid tbody tr[data-index="' + ci + '"]');
		await page.keyboard.press('2');
		const notes = await page.$$eval('#graph-chart g.note text', ts => ts.map(t => t.textContent));
		check('diff: graph draws the characteristic times', notes.length === D.a.profiles[ci].nt.length && notes.some(n => n.startsWith('null system call')), notes.join('|'));
		check('diff: peak annotated with its characteristic time', (await page.textContent('#graph-stats')).includes('consistent with null system call'));
		await shot(page, 'report-graph-annotated.png');
		await page.keyboard.press('Escape');
		await page.fill('#filter', '');
	}

	// Filter from the keyboard.
	await page.keyboard.press('Escape');
	await page.keyboard.press('/');
	await page.keyboard.type('fsync');
	rows = await rowIndexes(page);
	check('diff: filter keeps matching rows only', rows.length === D.a.profiles.filter(p => label(p).includes('fsync')).length && rows.length > 0);
	check('diff: no script errors', errors.length === 0, errors.join('; '));
	check('diff: no external requests', external.length === 0, external.join(' '));
	await page.close();
}

async function testLarge(name, n) {
	const { page, errors } = await open(name);
	const ms = await page.evaluate(() => window.osprofReadyMs);
	check(name + ': counts ' + n + ' profiles', (await page.textContent('#grid-count')) === n + ' of ' + n + ' profiles');
	const D = await data(page);
	const sortMs = await page.evaluate(() => { const t = performance.now(); document.querySelector('#grid th[data-key=p99]').click(); return performance.now() - t; });
	const want = D.a.profiles.map((p, i) => i).sort((x, y) => (D.a.profiles[y].p99 - D.a.profiles[x].p99) || x - y);
	const idx = await rowIndexes(page);
	check(name + ': sort by p99 (rows in view)', idx.length > 0 && idx.length < n && idx.every((v, k) => v === want[k]));
	// Walk down with the keyboard past the rendered window.
	await page.focus('#grid tbody');
	for (let k = 0; k < 3; k++) await page.keyboard.press('PageDown');
	for (let k = 0; k < 5; k++) await page.keyboard.press('ArrowDown');
	const sel = await page.$eval('#grid tbody tr.sel', t => Number(t.dataset.index));
	const pos = want.indexOf(sel);
	check(name + ': keyboard selection scrolls the grid', pos > 40 && await page.$eval('#grid tbody tr.sel', t => {
		const w = document.getElementById('grid-wrap').getBoundingClientRect(), r = t.getBoundingClientRect();
		return r.top >= w.top && r.bottom <= w.bottom + 1;
	}), 'row ' + pos);
	await page.keyboard.press('End');
	check(name + ': End selects the last row', (await page.$eval('#grid tbody tr.sel', t => Number(t.dataset.index))) === want[n - 1]);
	// Walking in the graph view moves the grid's selection; back in the grid it is in view.
	await page.keyboard.press('Home');
	await page.keyboard.press('2');
	for (let k = 0; k < 60; k++) await page.keyboard.press('ArrowDown');
	await page.keyboard.press('Escape');
	check(name + ': selection made in the graph is shown in the grid', await page.$eval('#grid tbody tr.sel', t => {
		const w = document.getElementById('grid-wrap').getBoundingClientRect(), r = t.getBoundingClientRect();
		return r.top >= w.top && r.bottom <= w.bottom + 1;
	}).catch(() => false) && (await page.$eval('#grid tbody tr.sel', t => Number(t.dataset.index))) === want[60]);
	console.log('# ' + name + ': ' + n + ' profiles, ' + statSync(reports[name]).size + ' bytes, ready ' +
		ms.toFixed(0) + ' ms after navigation start, sort ' + sortMs.toFixed(0) + ' ms');
	await page.keyboard.press('2');
	check(name + ': graph renders', (await page.$$('#graph-chart rect.bar')).length > 0);
	check(name + ': no script errors', errors.length === 0, errors.join('; '));
	if (name === 'big') await shot(page, 'report-big-graph.png');
	if (name === 'big') {
		// Time slices are embedded for the 100 sliced profiles with the most latency.
		await page.keyboard.press('3');
		const opts = await page.$$eval('#heat-pick option', os => os.map(o => Number(o.value)));
		const byTotal = D.a.profiles.map((p, i) => i).sort((x, y) => D.a.profiles[y].t - D.a.profiles[x].t);
		check('big: heat maps of the 100 profiles with the most latency', opts.length === 100 && D.a.heat === 100 && D.a.sliced === n &&
			opts.every(i => D.a.profiles[i].t >= D.a.profiles[byTotal[99]].t));
		check('big: heat view says some were left out', (await page.textContent('#heat-note')).includes('100') &&
			(await page.textContent('#heat-note')).includes(String(n)));
		check('big: heat map drawn', (await page.$$('#heat-chart rect.cell')).length > 0);
	}
	await page.close();
}

async function testEmpty() {
	const { page, errors } = await open('empty');
	check('empty: no rows, message shown', (await page.$$('#grid tbody tr[data-index]')).length === 0 && await visible(page, '#grid-empty'));
	for (const k of ['2', '3', '4', '5', 'l', 'ArrowDown', 'Enter']) await page.keyboard.press(k);
	await page.click('#tab-graph');
	check('empty: graph says there is nothing', (await page.textContent('#graph-chart')).includes('No profile'));
	check('empty: heat map and diff tabs disabled', await page.$eval('#tab-heat', b => b.disabled) && await page.$eval('#tab-diff', b => b.disabled));
	check('empty: no script errors', errors.length === 0, errors.join('; '));
	await page.close();
}

async function testSmall(name) {
	const { page, errors } = await open(name);
	const D = await data(page);
	await page.keyboard.press('2');
	const p = D.a.profiles[await page.evaluate(() => Number(document.querySelector('#grid tbody tr.sel')?.dataset.index ?? -1))];
	const bars = await page.$$eval('#graph-chart rect.bar', rs => rs.map(r => Number(r.dataset.count)));
	check(name + ': bars match the histogram', p && bars.length === p.b.filter(c => c).length && bars.reduce((a, b) => a + b, 0) === p.c);
	if (name === 'single') check('single: exactly one bar', bars.length === 1);
	if (name === 'r4') check('r4: resolution shown', (await page.textContent('#graph-chart')).includes('r=4'));
	check(name + ': no script errors', errors.length === 0, errors.join('; '));
	await shot(page, 'report-' + name + '.png');
	await page.close();
}

// Byte-size profiles with larger totals than every latency: the grid lists
// all latencies first, whatever the sort, and marks where sizes start.
async function testSizes() {
	const { page, errors } = await open('sizes');
	const D = await data(page);
	const kinds = async () => (await rowIndexes(page)).map(i => D.a.profiles[i].u === 'ns' ? 0 : 1);
	check('sizes: latencies before sizes at first', nonDecreasing(await kinds()) && (await kinds()).includes(1));
	for (const key of ['count', 'count', 'total', 'op']) {
		await page.click('#grid th[data-key=' + key + ']');
		check('sizes: latencies before sizes sorted by ' + key, nonDecreasing(await kinds()), (await kinds()).join(''));
	}
	const brk = await page.$$eval('#grid tbody tr.unit-break', trs => trs.map(t => Number(t.dataset.index)));
	check('sizes: one break, at the first size', brk.length === 1 && D.a.profiles[brk[0]].u !== 'ns', JSON.stringify(brk));
	check('sizes: no script errors', errors.length === 0, errors.join('; '));
	await shot(page, 'report-sizes.png');
	await page.close();
}

try {
	if (reports.sizes) await testSizes();
	if (reports.diff) await testDiff();
	if (reports.big) await testLarge('big', 1000);
	if (reports.huge) await testLarge('huge', 10000);
	if (reports.empty) await testEmpty();
	for (const n of ['single', 'r4']) if (reports[n]) await testSmall(n);
} catch (e) {
	failures++;
	console.log('not ok exception: ' + (e.stack || e));
} finally {
	await ctx.close();
	rmSync(profileDir, { recursive: true, force: true });
}
process.exit(failures ? 1 : 0);
