// canon.mjs: the Node side of the benchmark report (bench/report). It
// canonicalizes one JSON file with the npm package canonicalize (installed
// in fuzz/node by `npm ci --prefix fuzz/node`), as bytes in and bytes out:
// UTF-8 decoding, JSON.parse, canonicalize, UTF-8 encoding.
//
//	node canon.mjs NODE_PROJECT_DIR FILE MS
//
// With MS 0 it does that once (the report times the whole process from
// outside); otherwise once to warm up, then again and again for at least
// MS milliseconds. It prints "ITERATIONS NS_PER_OP SHA256_HEX" of the last
// output, so that the report can check it against bbdigest's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createHash } from 'node:crypto';

const [projectDir, file, msArg] = process.argv.slice(2);
const pkgDir = join(projectDir, 'node_modules', 'canonicalize');
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
const { default: canonicalize } = await import(pathToFileURL(join(pkgDir, pkg.main)).href);

const src = readFileSync(file);
const once = () => Buffer.from(canonicalize(JSON.parse(src.toString('utf8'))), 'utf8');
let out = once();
let n = 1;
let perOp = 0;
const ms = Number(msArg || 0);
if (ms > 0) {
  n = 0;
  const t0 = process.hrtime.bigint();
  let elapsed;
  do {
    out = once();
    n++;
    elapsed = Number(process.hrtime.bigint() - t0);
  } while (elapsed < ms * 1e6);
  perOp = elapsed / n;
}
process.stdout.write(`${n} ${perOp} ${createHash('sha256').update(out).digest('hex')}\n`);
