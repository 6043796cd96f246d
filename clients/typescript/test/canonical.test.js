import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { canonicalize, sameJson } from '../src/index.js';

const vectors = JSON.parse(readFileSync(new URL('../../testdata/canonical-json.json', import.meta.url), 'utf8'));

test('the RFC 8785 vectors shared with the Java and Python sides canonicalize alike', () => {
  assert.ok(vectors.length >= 10);
  for (const v of vectors) {
    assert.equal(canonicalize(JSON.parse(v.input)), v.canonical, v.name);
  }
});

test('key order, whitespace and 1 vs 1.0 are the same intent; other values are not', () => {
  assert.ok(sameJson(JSON.parse('{"a":1.0,"b":[true]}'), JSON.parse('{ "b":[true], "a":1 }')));
  assert.ok(!sameJson({ a: 1 }, { a: '1' }));
  assert.ok(!sameJson({ a: [1, 2] }, { a: [2, 1] }));
});

test('a lone surrogate or a non-finite number has no canonical form', () => {
  assert.throws(() => canonicalize('\ud800'), /lone surrogate/);
  assert.throws(() => canonicalize(NaN), /not finite/);
});
