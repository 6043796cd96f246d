/**
 * RFC 8785 (JSON Canonicalization Scheme), as toolledger-core's CanonicalJson writes it: object
 * members sorted by UTF-16 code units, numbers as ECMAScript prints a double, no whitespace.
 * The vectors in clients/testdata/canonical-json.json are shared with the Java and Python sides.
 *
 * @param {unknown} value a JSON value (objects, arrays, strings, finite numbers, booleans, null)
 * @returns {string}
 */
export function canonicalize(value) {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) {
        throw new TypeError('a number that is not finite has no JCS form');
      }
      return Object.is(value, -0) ? '0' : String(value);
    case 'string':
      return canonicalString(value);
    case 'object': {
      if (Array.isArray(value)) {
        return '[' + value.map((v) => canonicalize(v)).join(',') + ']';
      }
      // Array.prototype.sort compares UTF-16 code units, which is what RFC 8785 asks for.
      const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort();
      return '{' + keys.map((k) => canonicalString(k) + ':' + canonicalize(value[k])).join(',') + '}';
    }
    default:
      throw new TypeError(`a ${typeof value} has no JSON form and cannot be canonicalized`);
  }
}

function canonicalString(s) {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdfff) {
      const pair = c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
      if (!pair) {
        throw new TypeError(`a string holds a lone surrogate at position ${i + 1}; it is not Unicode`);
      }
      i++;
    }
  }
  // Well-formed JSON.stringify escapes exactly what RFC 8785 escapes, in the same spelling.
  return JSON.stringify(s);
}

/** Whether two JSON values are the same intent: equal canonical forms. */
export function sameJson(a, b) {
  return canonicalize(a) === canonicalize(b);
}
