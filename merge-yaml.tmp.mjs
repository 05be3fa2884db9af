// Three-way, key-level merge of two YAML documents (ours wins a true conflict, reported).
import { readFileSync, writeFileSync } from 'node:fs';
import { parseDocument, isMap, isSeq, isScalar } from 'yaml';
const [basePath, oursPath, theirsPath, outPath] = process.argv.slice(2);
const base = parseDocument(readFileSync(basePath, 'utf8'));
const ours = parseDocument(readFileSync(oursPath, 'utf8'));
const theirs = parseDocument(readFileSync(theirsPath, 'utf8'));
const js = (n) => (n === undefined || n === null ? undefined : JSON.stringify(n.toJSON ? n.toJSON() : n));
const conflicts = [];
function merge(b, o, t, path) {
  if (js(o) === js(t)) return o;
  if (js(o) === js(b)) return t;
  if (js(t) === js(b)) return o;
  if (isMap(o) && isMap(t)) {
    const keys = [...o.items.map((p) => p.key.value), ...t.items.map((p) => p.key.value).filter((k) => !o.has(k))];
    for (const k of keys) {
      const merged = merge(isMap(b) ? b.get(k, true) : undefined, o.get(k, true), t.get(k, true), [...path, k]);
      if (merged === undefined) o.delete(k);
      else if (merged !== o.get(k, true)) o.set(k, merged);
    }
    return o;
  }
  if (isSeq(o) && isSeq(t)) {
    const seen = new Set(o.items.map((i) => js(i)));
    for (const item of t.items) if (!seen.has(js(item))) o.items.push(item);
    return o;
  }
  conflicts.push(path.join('.'));
  return o;
}
merge(base.contents, ours.contents, theirs.contents, []);
writeFileSync(outPath, ours.toString({ lineWidth: 0, flowCollectionPadding: false }));
if (conflicts.length) console.log('CONFLICTS (ours kept):', conflicts.join(', '));
