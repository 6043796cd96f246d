// The ToolLedger operations console. Every value from the server is untrusted text (keys, tool
// names, causes, response bodies): it is only ever written with textContent, never as HTML.
"use strict";

const TOKEN = "toolledger.operator-token";
const $ = (id) => document.getElementById(id);
let current = null; // {tenant, key} of the operation shown

function token() {
  return sessionStorage.getItem(TOKEN);
}

async function api(path, options = {}) {
  const headers = Object.assign({ Authorization: "Bearer " + token() }, options.headers || {});
  const response = await fetch("/console/api" + path, Object.assign({}, options, { headers }));
  let body = null;
  try {
    body = await response.json();
  } catch (e) {
    body = null;
  }
  if (response.status === 401) {
    signOut("The operator token was refused.");
    throw new Error("unauthorized");
  }
  if (!response.ok) {
    throw new Error((body && (body.detail || body.title)) || "HTTP " + response.status);
  }
  return body;
}

function el(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) {
    node.textContent = String(text);
  }
  if (className) {
    node.className = className;
  }
  return node;
}

function table(target, columns, rows, onOpen) {
  const node = $(target);
  node.replaceChildren();
  const head = el("tr");
  columns.forEach((c) => head.appendChild(el("th", c.title)));
  if (onOpen) {
    head.appendChild(el("th", ""));
  }
  node.appendChild(head);
  if (rows.length === 0) {
    const empty = el("tr");
    const cell = el("td", "none");
    cell.colSpan = columns.length + (onOpen ? 1 : 0);
    empty.appendChild(cell);
    node.appendChild(empty);
    return;
  }
  rows.forEach((row) => {
    const tr = el("tr");
    columns.forEach((c) => {
      const value = row[c.field];
      const td = el("td", value === null || value === undefined ? "-" : value, c.className);
      if (c.field === "state") {
        td.classList.add("state-" + value);
      }
      tr.appendChild(td);
    });
    if (onOpen) {
      const cell = el("td");
      const open = el("button", "Open", "open");
      open.type = "button";
      open.dataset.tenant = row.tenant;
      open.dataset.key = row.key;
      open.addEventListener("click", () => onOpen(row.tenant, row.key));
      cell.appendChild(open);
      tr.appendChild(cell);
    }
    node.appendChild(tr);
  });
}

const OPERATION_COLUMNS = [
  { title: "Tenant", field: "tenant" },
  { title: "Key", field: "key", className: "key" },
  { title: "Tool", field: "tool" },
  { title: "State", field: "state" },
  { title: "Status", field: "status" },
  { title: "Created", field: "createdAt" },
  { title: "Claimed by", field: "owner" },
];

async function loadSummary() {
  const summary = await api("/summary");
  $("count-unknown").textContent = summary.attention.unknown;
  $("count-stale").textContent = summary.attention.staleInProgress;
  $("count-pending").textContent = summary.attention.outboxPending;
  $("count-dead").textContent = summary.attention.outboxDead;
  $("stale-title").textContent =
    "IN_PROGRESS for more than " + summary.staleAfterSeconds + " s (oldest first)";
  table("unknown-list", OPERATION_COLUMNS, summary.unknown, openOperation);
  table("stale-list", OPERATION_COLUMNS, summary.stale, openOperation);
  table(
    "dead-list",
    [
      { title: "Event", field: "id", className: "key" },
      { title: "Tenant", field: "tenant" },
      { title: "Topic", field: "topic" },
      { title: "Aggregate", field: "aggregate" },
      { title: "Attempts", field: "attempts" },
      { title: "Last error", field: "lastError" },
      { title: "Created", field: "createdAt" },
    ],
    summary.dead,
    null
  );
  table(
    "count-table",
    [
      { title: "State", field: "state" },
      { title: "Tool", field: "tool" },
      { title: "Operations", field: "count" },
    ],
    summary.counts,
    null
  );
}

async function search() {
  const params = new URLSearchParams();
  const key = $("search-key").value.trim();
  const tenant = $("search-tenant").value.trim();
  const state = $("search-state").value;
  if (tenant) params.set("tenant", tenant);
  if (state) params.set("state", state);
  const found = await api("/operations?" + params.toString(), { headers: keyHeader(key) });
  table("results", OPERATION_COLUMNS, found.operations, openOperation);
}

// A key never goes into a URL (URLs end up in proxies' access logs): it travels in a header.
function keyHeader(key) {
  return key ? { "Operation-Key": key } : {};
}

function query(tenant) {
  return "tenant=" + encodeURIComponent(tenant);
}

async function openOperation(tenant, key) {
  showError("");
  $("resolve-message").textContent = "";
  showOperation(await api("/operation?" + query(tenant), { headers: keyHeader(key) }));
}

function showOperation(op) {
  current = { tenant: op.tenant, key: op.key };
  $("detail").hidden = false;
  $("detail-tenant").textContent = op.tenant;
  $("detail-key").textContent = op.key;
  $("detail-key").className = "key";
  $("detail-log-key").textContent = op.logKey;
  $("detail-tool").textContent = op.tool === null ? "-" : op.tool + " (version " + op.toolVersion + ")";
  $("detail-state").textContent = op.state;
  $("detail-state").className = "state-" + op.state;
  $("detail-created").textContent = op.createdAt;
  $("detail-completed").textContent = op.completedAt || "-";
  $("detail-response").textContent = op.response
    ? op.response.status + " " + JSON.stringify(op.response.body, null, 2)
    : "-";
  const timeline = $("timeline");
  timeline.replaceChildren();
  op.history.forEach((step) => {
    const item = el("li");
    item.appendChild(el("time", step.at));
    item.appendChild(
      el("span", " " + (step.from || "(new)") + " \u2192 " + step.to + ": " + step.cause)
    );
    item.appendChild(el("span", " by " + step.actor, "actor"));
    timeline.appendChild(item);
  });
  $("resolve-form").hidden = op.state !== "UNKNOWN";
  $("detail").scrollIntoView();
}

async function resolve() {
  const resolution = $("resolution").value;
  const body = { resolution, reason: $("reason").value };
  if (resolution === "COMPLETED") {
    let parsed;
    try {
      parsed = JSON.parse($("resolve-body").value);
    } catch (e) {
      $("resolve-message").textContent = "The body is not JSON: " + e.message;
      return;
    }
    body.response = { status: Number($("resolve-status").value), body: parsed };
  }
  try {
    const op = await api("/resolve?" + query(current.tenant), {
      method: "POST",
      headers: Object.assign({ "Content-Type": "application/json" }, keyHeader(current.key)),
      body: JSON.stringify(body),
    });
    showOperation(op);
    $("resolve-message").textContent = "Resolved as " + op.state + ".";
    await loadSummary();
  } catch (e) {
    $("resolve-message").textContent = "Not resolved: " + e.message;
  }
}

function showError(message) {
  $("error").textContent = message;
}

function guard(action) {
  return () =>
    action().catch((e) => {
      if (e.message !== "unauthorized") showError(e.message);
    });
}

function signOut(message) {
  sessionStorage.removeItem(TOKEN);
  $("console").hidden = true;
  $("login").hidden = false;
  $("sign-out").hidden = true;
  $("refresh").hidden = true;
  $("login-error").textContent = message || "";
}

async function signIn() {
  const value = $("token").value.trim();
  if (!value) {
    $("login-error").textContent = "Paste the operator token.";
    return;
  }
  sessionStorage.setItem(TOKEN, value);
  $("token").value = "";
  await enter();
}

async function enter() {
  try {
    await loadSummary();
  } catch (e) {
    if (e.message !== "unauthorized") $("login-error").textContent = e.message;
    return;
  }
  $("login").hidden = true;
  $("login-error").textContent = "";
  $("console").hidden = false;
  $("sign-out").hidden = false;
  $("refresh").hidden = false;
  $("console").dataset.ready = "true";
}

document.addEventListener("DOMContentLoaded", () => {
  $("sign-in").addEventListener("click", () => signIn());
  $("token").addEventListener("keydown", (e) => {
    if (e.key === "Enter") signIn();
  });
  $("sign-out").addEventListener("click", () => signOut(""));
  $("refresh").addEventListener("click", guard(loadSummary));
  $("search-button").addEventListener("click", guard(search));
  $("resolve-button").addEventListener("click", () => resolve());
  $("resolution").addEventListener("change", () => {
    $("completed-fields").hidden = $("resolution").value !== "COMPLETED";
  });
  if (token()) enter();
});
