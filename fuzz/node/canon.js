// canon.js: the reference side of bbdigest's Node differential test
// (fuzz/node_test.go). It reads one JSON text per line from stdin, each
// base64-encoded, and writes one line per input, in order: the base64 of
// the UTF-8 canonical form that JSON.parse + canonicalize produce, or "!"
// followed by the error message.
//
// The input bytes are decoded as UTF-8 strictly (fatal: ill-formed UTF-8 is
// an error, not U+FFFD) and a leading byte-order mark is kept (ignoreBOM),
// so that JSON.parse sees exactly the text bbdigest sees.
import { createInterface } from 'node:readline';
import canonicalize from 'canonicalize';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const out = [];
for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  try {
    const text = utf8.decode(Buffer.from(line, 'base64'));
    out.push(Buffer.from(canonicalize(JSON.parse(text)), 'utf8').toString('base64'));
  } catch (e) {
    out.push('!' + String(e && e.message).replace(/[\r\n]+/g, ' '));
  }
}
process.stdout.write(out.map((l) => l + '\n').join(''));
