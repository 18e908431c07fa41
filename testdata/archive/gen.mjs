// gen.mjs builds the archives of testdata/archive and the answers bbdigest
// must give for them, independently of bbdigest: for a record that is
// accepted, the SHA-256 (node:crypto) of its canonical form as JSON.parse
// and the npm package canonicalize (RFC 8785) write it; for one that is
// rejected, the class it has by construction, and the JSON pointer of
// where the problem is, stated here beside it.
//
//   node gen.mjs BASE.jsonl OUTDIR
//
// BASE.jsonl holds realistic records, all of which the strict profile
// accepts (bbdigest archive gen --kind mixed; generate.sh makes it); the
// script checks that each is a JSON text whose numbers are safe integers
// and whose nesting is at most 64, so that its strict answer is its
// digest. It writes to OUTDIR:
//
//   records.jsonl     the records with a line of every bad kind among them,
//                     the last line a record without its "\n"
//   truncated.jsonl   the first lines of records.jsonl and a record cut
//                     short, as a writer killed part-way leaves an archive
//   claims.jsonl      records of archive verify: claims right and wrong,
//                     bad wrappers, docs the profiles treat differently
//   *.expected.jsonl  one line per input line:
//     {"line":N,"bytes":B,"strict":ANSWER,"rfc8785":ANSWER}
//   B the line's length without its "\n" ("\r" included), ANSWER
//     {"digest":"sha256:…"} or {"class":"…","pointer":"…"} for rehash,
//     {"ok":true,"digest":D}, {"ok":false,"digest":D,"claimed":C} or
//     {"ok":false,"class":"…","pointer":"…"} for verify.
// The pointer (RFC 6901) is that of the value the problem is in: the
// string with a bad byte or escape, the number outside the profile, the
// first container past the depth bound, the duplicate member; for a
// syntax error the value being read where the text stops being JSON (""
// at the top level). For verify, a doc's problem is at "/doc" and its
// pointer in doc; a wrapper's is "" (the record itself). The pointer of a
// record cut short is not stated (it depends on where the cut falls).
// A line longer than a lowered bound (--max-record) is too-large instead,
// with the pointer "": the tests apply that rule themselves from B.

import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import canonicalize from '../../fuzz/node/node_modules/canonicalize/lib/canonicalize.js';

const [base, outdir] = process.argv.slice(2);
if (!base || !outdir) {
  console.error('usage: node gen.mjs BASE.jsonl OUTDIR');
  process.exit(2);
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const sha = (s) => 'sha256:' + createHash('sha256').update(Buffer.from(s, 'utf8')).digest('hex');

// digestOf returns the digest of the canonical form of the JSON text buf.
function digestOf(buf) {
  return sha(canonicalize(JSON.parse(utf8.decode(buf))));
}

// strictOK reports whether a parsed value is within the strict profile's
// number and depth rules (the only ones JSON.parse leaves to check).
function strictOK(v, depth = 0) {
  if (typeof v === 'number') return Number.isSafeInteger(v);
  if (v === null || typeof v !== 'object') return true;
  if (depth + 1 > 64) return false;
  return Object.values(v).every((e) => strictOK(e, depth + 1));
}

const baseLines = readFileSync(base).toString('utf8').split('\n').filter((l) => l !== '');
for (const [i, l] of baseLines.entries()) {
  if (!strictOK(JSON.parse(l))) throw new Error(`base line ${i + 1} is not strict-valid`);
}

// accept answers a record both profiles accept.
const accept = { strict: 'accept', rfc8785: 'accept' };
// rej is a rejection with its class and pointer (see the top).
const rej = (cls, pointer) => ({ class: cls, pointer });
// both answers a record both profiles reject with class at pointer.
const both = (cls, pointer) => ({ strict: rej(cls, pointer), rfc8785: rej(cls, pointer) });
const nest = (n) => '['.repeat(n) + ']'.repeat(n);
// past(bound) is the pointer of the first container of nest(n) past the
// depth bound, n > bound: the outermost is "", each inner one element 0
// of the one around it.
const past = (bound) => '/0'.repeat(bound);
const strictDepth = 64;
const rfc8785Depth = 1000;

// The bad lines, each with its answers: 'accept' (the digest is computed)
// or the class and pointer by construction.
const bad = [
  { text: '', ...both('syntax', '') }, // a blank line
  { text: ' \t ', ...both('syntax', '') }, // whitespace only
  { text: '\r', ...both('syntax', '') }, // a CRLF blank line
  { text: '{"tool": "read_file", "input": {"path": "/etc/hosts"}}\r', ...accept }, // CRLF
  { text: Buffer.from('{"note": "caf\xe9"}', 'latin1'), ...both('invalid-utf8', '/note') }, // Latin-1, not UTF-8
  { text: Buffer.from([0x22, 0xc0, 0xaf, 0x22]), ...both('invalid-utf8', '') }, // an overlong encoding
  { text: Buffer.from([0x5b, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x5d]), ...both('invalid-utf8', '/0') }, // an encoded surrogate
  { text: '{"text": "\\ud800 alone"}', ...both('unpaired-surrogate', '/text') },
  { text: '["\\udc00\\ud800"]', ...both('unpaired-surrogate', '/0') }, // a pair the wrong way round
  { text: '{"a": 1, "a": 2}', ...both('duplicate-name', '/a') },
  { text: '{"a": 1, "\\u0061": 2}', ...both('duplicate-name', '/a') }, // equal once unescaped
  {
    text: '{"synopsis": "Renew.", "offer": "Ask.", "findings": [], "recommendations": [], "offer": "Ask twice.", "question": {}}',
    ...both('duplicate-name', '/offer'),
  },
  { text: '{"amount_cents": 9007199254740993}', strict: rej('unsafe-integer', '/amount_cents'), rfc8785: 'accept' }, // 2^53+1
  { text: '[123456789012345678901234567890, 1e21]', strict: rej('unsafe-integer', '/0'), rfc8785: 'accept' },
  { text: '{"price": 120.5, "tax": 0.1, "small": 1e-7}', strict: rej('non-integer', '/price'), rfc8785: 'accept' },
  { text: '[1.0, 2.5E4, -0, 1E2]', ...accept }, // integral values, any notation
  { text: '[1e400]', strict: rej('unsafe-integer', '/0'), rfc8785: rej('number-range', '/0') },
  { text: nest(64), ...accept },
  { text: nest(65), strict: rej('depth', past(strictDepth)), rfc8785: 'accept' },
  { text: nest(1001), strict: rej('depth', past(strictDepth)), rfc8785: rej('depth', past(rfc8785Depth)) },
  { text: '{"a": [1, 2,]}', ...both('syntax', '/a/2') }, // a trailing comma: element 2 of "a" is wanted
  { text: '{} {}', ...both('syntax', '') }, // two texts
  { text: "{'a': 1}", ...both('syntax', '') }, // the object wants a member name
  { text: '[01]', ...both('syntax', '/0') },
  { text: '[NaN]', ...both('syntax', '/0') },
  { text: Buffer.from('\xef\xbb\xbf{}', 'latin1'), ...both('syntax', '') }, // a byte-order mark
  { text: Buffer.from('["tab\there"]', 'latin1'), ...both('syntax', '/0') }, // a raw control character
  { text: '"\\u00e9\\/\\u20ac"', ...accept }, // escapes that canonicalize away
];

// longRecord is a record of about 6 KB, accepted at the default bound and
// too-large under a bound of 4096.
function longRecord() {
  const findings = [];
  for (let i = 0; i < 60; i++) findings.push(`Finding ${i}: the renewal window for certificate ${i} is open.`);
  return JSON.stringify({ synopsis: 'A long envelope.', findings, offer: 'Ask.' });
}

// answer returns the expected answer of one line under one profile: how
// is 'accept', or the answer itself (a rejection, or for claims a verify
// answer).
function answer(buf, how) {
  return how === 'accept' ? { digest: digestOf(buf) } : how;
}

// build returns the archive of the lines (each a Buffer, with its answers)
// and the expected file; the last line gets no "\n" when last is true.
function build(lines, noFinalNewline) {
  const parts = [];
  const expected = [];
  lines.forEach((l, i) => {
    parts.push(l.buf);
    if (!(noFinalNewline && i === lines.length - 1)) parts.push(Buffer.from('\n'));
    expected.push(JSON.stringify({ line: i + 1, bytes: l.buf.length, strict: answer(l.buf, l.strict), rfc8785: answer(l.buf, l.rfc8785) }));
  });
  return [Buffer.concat(parts), expected.join('\n') + '\n'];
}

const asBuf = (t) => (Buffer.isBuffer(t) ? t : Buffer.from(t, 'utf8'));

// records.jsonl: the base records, a bad line after every third, the
// long record, and a last record without its "\n".
const recLines = [];
let b = 0;
baseLines.forEach((l, i) => {
  recLines.push({ buf: asBuf(l), ...accept });
  if (i % 3 === 2 && b < bad.length) {
    const x = bad[b++];
    recLines.push({ buf: asBuf(x.text), strict: x.strict, rfc8785: x.rfc8785 });
  }
  if (i === 10) recLines.push({ buf: asBuf(longRecord()), ...accept });
});
while (b < bad.length) {
  const x = bad[b++];
  recLines.push({ buf: asBuf(x.text), strict: x.strict, rfc8785: x.rfc8785 });
}
recLines.push({ buf: asBuf('{"last": "a record without its newline"}'), ...accept });
const [records, recordsExpected] = build(recLines, true);
writeFileSync(join(outdir, 'records.jsonl'), records);
writeFileSync(join(outdir, 'records.expected.jsonl'), recordsExpected);

// truncated.jsonl: the first 30 lines, then a record cut in the middle
// (its pointer not stated).
const cut = baseLines[0].slice(0, Math.floor(baseLines[0].length / 2));
const [truncated, truncatedExpected] = build([...recLines.slice(0, 30), { buf: asBuf(cut), ...both('syntax', undefined) }], true);
writeFileSync(join(outdir, 'truncated.jsonl'), truncated);
writeFileSync(join(outdir, 'truncated.expected.jsonl'), truncatedExpected);

// claims.jsonl: records of archive verify.
const claimLines = [];
const verifyAnswer = (docBuf, claimed, how) => {
  if (how !== 'accept') return { ok: false, class: how.class, pointer: '/doc' + how.pointer };
  const d = digestOf(docBuf);
  return d === claimed ? { ok: true, digest: d } : { ok: false, digest: d, claimed };
};
// claim adds {"digest":claimed,"doc":doc} in one of four layouts; claimed
// is doc's own digest unless given.
function claim(doc, answers = accept, claimed, layout = claimLines.length % 4) {
  const docBuf = asBuf(doc);
  claimed ??= digestOf(docBuf);
  const wrappers = [
    [`{"digest":"${claimed}","doc":`, '}'],
    [`{"doc": `, `, "digest": "${claimed}"}`],
    [` { "digest" : "${claimed}" ,\t"doc" : `, ' } '],
    [`{"digest":"${claimed}","doc":`, '}\r'],
  ][layout];
  const buf = Buffer.concat([asBuf(wrappers[0]), docBuf, asBuf(wrappers[1])]);
  claimLines.push({ buf, strict: verifyAnswer(docBuf, claimed, answers.strict), rfc8785: verifyAnswer(docBuf, claimed, answers.rfc8785) });
}
// wrapper adds a line that is not a verify record.
const wrapper = (text) =>
  claimLines.push({ buf: asBuf(text), strict: { ok: false, class: 'wrapper', pointer: '' }, rfc8785: { ok: false, class: 'wrapper', pointer: '' } });

const d0 = digestOf(asBuf(baseLines[0]));
baseLines.slice(0, 40).forEach((l, i) => {
  if (i % 8 === 5) claim(l, accept, digestOf(asBuf(baseLines[i + 1]))); // the claim of another record
  else claim(l);
});
claim('{"price": 120.5}', { strict: rej('non-integer', '/price'), rfc8785: 'accept' });
claim('{"n": 9007199254740993}', { strict: rej('unsafe-integer', '/n'), rfc8785: 'accept' });
claim(nest(65), { strict: rej('depth', past(strictDepth)), rfc8785: 'accept' });
claim(nest(64));
claim('{"a": 1, "a": 2}', both('duplicate-name', '/a'), d0);
claim(Buffer.from('"caf\xe9"', 'latin1'), both('invalid-utf8', ''), d0);
claim('[1,]', both('syntax', '/1'), d0);
claim('"\\u00e9"');
claim('0');
wrapper('');
wrapper('[]');
wrapper('{}');
wrapper(`{"digest":"${d0}"}`);
wrapper('{"doc": {"a": 1}}');
wrapper(`{"digest":"${d0}","doc":1,"note":"extra"}`);
wrapper(`{"doc":1,"doc":1,"digest":"${d0}"}`);
wrapper(`{"digest":"${d0.toUpperCase()}","doc":1}`);
wrapper(`{"digest":"sha512:${'0'.repeat(128)}","doc":1}`);
wrapper(`{"d\\u006fc":1,"digest":"${d0}"}`);
wrapper(`{"digest":1,"doc":1}`);
wrapper(`{"digest":"${d0}","doc":1} trailing`);
wrapper(`{"digest":"${d0}","doc":{"synopsis":"cut sh`);
claim(baseLines[1]);
const [claims, claimsExpected] = build(claimLines, false);
writeFileSync(join(outdir, 'claims.jsonl'), claims);
writeFileSync(join(outdir, 'claims.expected.jsonl'), claimsExpected);
