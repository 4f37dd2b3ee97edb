// Small helpers shared by every screen: building elements, notices, and what the tab remembers.
//
// Views arrive from the network, so every text taken from them goes into the page as text
// (textContent), never as HTML: a player's name can never inject markup.

/** Build an element: h("button", {class: "x", onclick: f}, "text", child, ...). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "class") {
      el.className = value;
    } else if (key === "dataset") {
      Object.assign(el.dataset, value);
    } else if (key === "style" && typeof value === "object") {
      // Custom properties ("--seat") only take effect through setProperty.
      for (const [prop, v] of Object.entries(value)) {
        if (prop.startsWith("--")) el.style.setProperty(prop, v);
        else el.style[prop] = v;
      }
    } else if (value === true) {
      el.setAttribute(key, "");
    } else {
      el.setAttribute(key, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

/**
 * Say something to screen readers without showing it: the polite live region in index.html. The
 * text is cleared first so that the same words said twice ("Your turn.") are announced twice.
 */
export function announce(text) {
  const box = document.getElementById("announce");
  if (!box) return;
  box.textContent = "";
  box.dataset.count = String(Number(box.dataset.count || 0) + 1); // how many so far, for the tests
  setTimeout(() => { box.textContent = text; }, 50);
}

/** Copy text to the clipboard; false when the page may not (then the caller shows it to copy by hand). */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // The asynchronous clipboard needs a secure page and permission; the old way needs neither.
    const area = h("textarea", { readonly: true, style: { position: "fixed", opacity: "0" } });
    area.value = text;
    document.body.appendChild(area);
    area.select();
    let ok = false;
    try { ok = document.execCommand("copy"); } catch { ok = false; }
    area.remove();
    return ok;
  }
}

/**
 * A link to send to others: the link itself in a read-only field (selectable by hand, readable by
 * screen readers) and a Copy button. testid names the pair for the browser tests.
 */
export function shareBox(link, { label = "Link", testid = "share" } = {}) {
  const field = h("input", { class: "share-link", readonly: true, value: link, "aria-label": label,
    "data-testid": `${testid}-link`, onfocus: () => field.select() });
  const button = h("button", { type: "button", class: "copy", "data-testid": `${testid}-copy`,
    onclick: async () => {
      if (await copyText(link)) {
        button.textContent = "✔ Copied";
        toast("Link copied: send it to the others.");
        setTimeout(() => { button.textContent = "Copy link"; }, 2500);
      } else {
        field.focus();
        field.select();
        toast("Copying is not allowed here: the link is selected, copy it by hand.", "error");
      }
    } }, "Copy link");
  return h("span", { class: "share" }, field, button);
}

/** The link that opens a room: seated (join a free seat) or watching. */
export function roomLink(rid, suffix = "") {
  return `${location.origin}${location.pathname}#/room/${encodeURIComponent(rid)}${suffix}`;
}

/** A short notice in the corner; kind is "info" or "error". */
export function toast(text, kind = "info", ms = 4000) {
  const box = document.getElementById("toasts");
  if (!box) return;
  const el = h("div", { class: `toast toast-${kind}`, role: kind === "error" ? "alert" : "status" },
    kind === "error" ? "⚠ " : "ℹ ", text);
  box.appendChild(el);
  setTimeout(() => el.remove(), ms);
}

/** JSON over HTTP against the lobby API; rejects with {status, error, message} on a non-2xx answer. */
export async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  let data = null;
  try { data = await res.json(); } catch { data = null; }
  if (!res.ok) {
    const err = new Error((data && data.message) || `HTTP ${res.status}`);
    err.status = res.status;
    err.code = (data && data.error) || String(res.status);
    throw err;
  }
  return data;
}

// The player's name is remembered across visits (localStorage); a seat's token only in this tab
// (sessionStorage), so a reload resumes the seat while another tab of the same browser does not
// silently take it over.
const NAME_KEY = "hub.name";
const SEAT_KEY = (rid) => `hub.seat.${rid}`;

export function savedName() {
  try { return localStorage.getItem(NAME_KEY) || ""; } catch { return ""; }
}

export function saveName(name) {
  try { localStorage.setItem(NAME_KEY, name); } catch { /* private mode: not remembered */ }
}

/** {seat, token} held by this tab for a room, or null. */
export function seatFor(rid) {
  try {
    const raw = sessionStorage.getItem(SEAT_KEY(rid));
    const got = raw ? JSON.parse(raw) : null;
    return got && typeof got.token === "string" && Number.isInteger(got.seat) ? got : null;
  } catch { return null; }
}

export function saveSeat(rid, seat, token) {
  try { sessionStorage.setItem(SEAT_KEY(rid), JSON.stringify({ seat, token })); } catch { /* ignore */ }
}

export function forgetSeat(rid) {
  try { sessionStorage.removeItem(SEAT_KEY(rid)); } catch { /* ignore */ }
}

/** "frenzy_falls" -> "Frenzy falls": the fallback for any id without a nicer name. */
export function words(id) {
  const s = String(id ?? "").replace(/_/g, " ").trim();
  return s ? s[0].toUpperCase() + s.slice(1) : "";
}

/** A name for a seat: the name the hub gives the player, else "Seat n". */
export function seatName(view, seat) {
  const p = view && Array.isArray(view.players) ? view.players.find((x) => x && x.seat === seat) : null;
  return (p && p.name) ? String(p.name) : `Seat ${seat}`;
}

/**
 * Rebuild a container's content while keeping keyboard focus: the element that had focus is found
 * again by its data-focus-key, so a player tabbing through the table does not lose their place each
 * time a delta arrives.
 */
export function rebuild(container, build) {
  const active = document.activeElement;
  const key = active && container.contains(active) ? active.dataset.focusKey : undefined;
  container.replaceChildren();
  build(container);
  if (key !== undefined) {
    const again = container.querySelector(`[data-focus-key="${CSS.escape(key)}"]`);
    if (again && !again.disabled) again.focus({ preventScroll: true });
  }
}
