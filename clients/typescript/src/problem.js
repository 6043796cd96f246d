/** ToolLedger's problem type URIs (RFC 9457 `type`), by slug. */
export const PROBLEM_BASE = 'https://toolledger.dev/problems/';

/**
 * An RFC 9457 problem document as received, or made on the client side. Unlike the server's own
 * problems it also holds a gateway's or a document-less error page (type `about:blank`).
 */
export class ProblemDetails {
  /**
   * @param {{type: string, status: number, title: string, detail: string, document: object}} p
   */
  constructor({ type, status, title, detail, document }) {
    this.type = type;
    this.status = status;
    this.title = title;
    this.detail = detail;
    this.document = document;
    Object.freeze(this);
  }

  /** The ToolLedger slug (`idempotency-key-reused`, ...) when the type is one of ours. */
  get slug() {
    return this.type.startsWith(PROBLEM_BASE) && !this.type.slice(PROBLEM_BASE.length).includes('/')
      ? this.type.slice(PROBLEM_BASE.length)
      : undefined;
  }

  /** @param {string} slug */
  is(slug) {
    return this.type === PROBLEM_BASE + slug;
  }

  /** A problem of one of ToolLedger's types, made on the client side. */
  static of(slug, status, title, detail) {
    return ProblemDetails.fromDocument(
      { type: PROBLEM_BASE + slug, title, status, detail },
      status,
    );
  }

  /**
   * Reads an answer's body; `status` (the HTTP status) wins over the document's own member. A body
   * that is not a JSON object becomes `about:blank` (its text is not kept: it may echo input).
   */
  static parse(status, body) {
    let json;
    try {
      json = body ? JSON.parse(body) : undefined;
    } catch {
      json = undefined;
    }
    if (json === null || typeof json !== 'object' || Array.isArray(json)) {
      return ProblemDetails.fromDocument(
        {
          type: 'about:blank',
          title: `HTTP ${status}`,
          status,
          detail: `the server answered HTTP ${status} without a problem document`,
        },
        status,
      );
    }
    return ProblemDetails.fromDocument(json, status);
  }

  /** Rebuilds a problem from a stored document; the status from the document unless given. */
  static fromDocument(document, status) {
    const doc = document && typeof document === 'object' ? structuredClone(document) : {};
    const text = (m) => (typeof doc[m] === 'string' ? doc[m] : '');
    return new ProblemDetails({
      type: typeof doc.type === 'string' && doc.type ? doc.type : 'about:blank',
      status: status ?? (Number.isInteger(doc.status) ? doc.status : 0),
      title: text('title'),
      detail: text('detail'),
      document: doc,
    });
  }

  /** Type, status and title only: the detail may quote input. */
  toString() {
    return `ProblemDetails[type=${this.type}, status=${this.status}, title=${this.title}]`;
  }
}
