// Times every case of the wasm suite in several node processes, one after
// another, and prints one JSON line per case with the median of their
// means. With --reference, each process also times the JavaScript
// reference from JSON text to store (`JSON.parse`, then normalize), the
// counterpart of our parse_normalize_* cases, which the reference's own
// benchmark leaves out, and `JSON.parse` alone, beside our parse_* cases.
//
//   node run.mjs PKG_DIR [--processes 5] [--warmup 300] [--time 1000]
//                [--filter SUBSTR] [--reference ../shared/bench/js]
//
// PKG_DIR holds the suite bound by `wasm-bindgen --target nodejs`.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import path from 'node:path';

const argv = process.argv.slice(2);
const pkg = path.resolve(argv[0]);
const opt = (name, fallback) => {
  const at = argv.indexOf(`--${name}`);
  return at >= 0 ? argv[at + 1] : fallback;
};
const warmup = Number(opt('warmup', 300));
const time = Number(opt('time', 1000));
const filter = opt('filter', '');
const reference = opt('reference', '');

if (argv.includes('--child')) {
  child();
} else {
  parent();
}

function parent() {
  const processes = Number(opt('processes', 5));
  const runs = new Map();
  for (let i = 0; i < processes; i++) {
    const args = ['--expose-gc', fileURLToPath(import.meta.url), ...argv, '--child'];
    const out = spawnSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (out.status !== 0) throw new Error(`a measuring process failed (${out.status})`);
    for (const line of out.stdout.split('\n').filter(Boolean)) {
      const { case: name, side, mean_us } = JSON.parse(line);
      const key = `${side}\t${name}`;
      if (!runs.has(key)) runs.set(key, []);
      runs.get(key).push(mean_us);
    }
  }
  for (const [key, means] of runs) {
    const [side, name] = key.split('\t');
    const sorted = [...means].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    const row = { case: name, side, mean_us: median, min_us: sorted[0], max_us: sorted.at(-1), processes: means.length };
    process.stdout.write(JSON.stringify(row) + '\n');
  }
}

async function child() {
  const emit = (side, name, mean_us) =>
    process.stdout.write(JSON.stringify({ case: name, side, mean_us }) + '\n');
  const require = createRequire(import.meta.url);
  const { Suite } = require(path.join(pkg, 'restcache_bench_wasm.js'));
  const suite = new Suite();
  for (const name of Suite.cases().filter(name => name.includes(filter))) {
    globalThis.gc?.();
    emit('ours', name, suite.time(name, warmup, time));
  }
  if (reference) await referenceTextToStore(emit);
}

// The reference engine (npm @data-client/normalizr 0.18.1, as
// ../shared/bench/js loads it) from JSON text to its store.
async function referenceTextToStore(emit) {
  const js = path.resolve(reference);
  const { loadEngine } = await import(pathToFileURL(path.join(js, 'engines.mjs')).href);
  const engine = await loadEngine('0.18');
  const fixture = JSON.parse(readFileSync(path.join(js, '..', 'fixture.json'), 'utf8'));
  const meta = { fetchedAt: 1700000000000, date: 1700000000000, expiresAt: 1700010000000 };
  const cases = [
    ['projects_1000', engine.schemas.ProjectsSchema, JSON.stringify(fixture.projects)],
    ['todos_10000', engine.schemas.TodosSchema, JSON.stringify(fixture.todos)],
  ];
  for (const [name, schema, text] of cases) {
    // JSON.parse alone too: the share of the work no cache takes part in.
    if (`parse_${name}`.includes(filter)) {
      globalThis.gc?.();
      emit('reference', `parse_${name}`, timePerCall(() => JSON.parse(text)));
    }
    if (`parse_normalize_${name}`.includes(filter)) {
      globalThis.gc?.();
      emit('reference', `parse_normalize_${name}`,
        timePerCall(() => engine.normalize(schema, JSON.parse(text), undefined, meta)));
    }
  }
}

// Microseconds per call, timed as the suite times its own per-call cases.
function timePerCall(routine) {
  let end = performance.now() + warmup;
  while (performance.now() < end) routine();
  let total = 0;
  let calls = 0;
  end = performance.now() + time;
  while (calls < 10 || performance.now() < end) {
    const start = performance.now();
    routine();
    total += performance.now() - start;
    calls += 1;
  }
  return (total * 1000) / calls;
}
