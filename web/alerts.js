// Telling a player who is not looking: a short sound and a browser notification when it becomes
// their turn, when an offer names them, or when a grab opens. Both are opt-in (two switches in the
// table's header), and the choice is remembered by the browser (localStorage), not per room.
// The tab's title says the same without asking (frame.js retitle): an open grab, new offers, the turn.
//
// alertMe(kind, text) is called by the table (frame.js, table.js) for each such moment; it does what
// the player chose, and notes what it did in window.hubAlerts, for the curious and for tests.

import { useState } from "preact/hooks";
import { h, toast } from "./ui.js";
import { t } from "./words.js";

const PREFS_KEY = "hub.alerts";

/** {sound, notify}: what this browser's player chose; both off until they opt in. */
export function alertPrefs() {
  try {
    const got = JSON.parse(localStorage.getItem(PREFS_KEY) || "{}");
    return { sound: got.sound === true, notify: got.notify === true };
  } catch { return { sound: false, notify: false }; }
}

function savePrefs(prefs) {
  try { localStorage.setItem(PREFS_KEY, JSON.stringify(prefs)); } catch { /* private mode: for this page only */ }
}

function notifications() {
  return typeof window !== "undefined" && "Notification" in window ? window.Notification : null;
}

let audio = null;

/** A short two-tone chime, made on the spot: no sound file to load. */
function chime() {
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return false;
  try {
    audio ||= new Ctx();
    if (audio.state === "suspended") audio.resume();
    const now = audio.currentTime;
    for (const [i, freq] of [880, 1320].entries()) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, now + i * 0.12);
      gain.gain.exponentialRampToValueAtTime(0.15, now + i * 0.12 + 0.02);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + i * 0.12 + 0.18);
      osc.connect(gain).connect(audio.destination);
      osc.start(now + i * 0.12);
      osc.stop(now + i * 0.12 + 0.2);
    }
    return true;
  } catch { return false; }
}

/** One moment worth telling (kind: "turn", "offer" or "grab"), told as the player chose. */
export function alertMe(kind, text) {
  const prefs = alertPrefs();
  const done = { kind, text, sound: false, notified: false, at: Date.now() };
  if (prefs.sound) done.sound = chime();
  const N = notifications();
  if (prefs.notify && N && N.permission === "granted") {
    try {
      const n = new N(text, { tag: `hub-${kind}`, renotify: true });
      n.onclick = () => { window.focus(); n.close(); };
      done.notified = true;
    } catch { /* some browsers only notify from a service worker */ }
  }
  (window.hubAlerts ||= []).push(done);
}

/** The two switches in the table's header: sound, notifications. */
export function AlertSwitches() {
  const [prefs, setPrefs] = useState(alertPrefs);
  const set = (next) => { savePrefs(next); setPrefs(next); };
  const onSound = (e) => {
    const on = e.currentTarget.checked;
    set({ ...prefs, sound: on });
    if (on) chime(); // a press is what lets the page play sound at all; and the player hears it
  };
  const onNotify = async (e) => {
    const on = e.currentTarget.checked;
    const N = notifications();
    if (!on) { set({ ...prefs, notify: false }); return; }
    if (!N) { toast(t("alerts.none"), "error"); set({ ...prefs, notify: false }); return; }
    let permission = N.permission;
    if (permission === "default") {
      try { permission = await N.requestPermission(); } catch { permission = "denied"; }
    }
    if (permission !== "granted") {
      toast(t("alerts.blocked"), "error", 8000);
      set({ ...prefs, notify: false });
      return;
    }
    set({ ...prefs, notify: true });
  };
  return h("span", { class: "alert-switches", "data-testid": "alerts" },
    h("label", { title: t("alerts.soundTitle") },
      h("input", { type: "checkbox", checked: prefs.sound, onchange: onSound, "data-testid": "alert-sound" }), ` 🔔 ${t("alerts.sound")}`),
    h("label", { title: t("alerts.notifyTitle") },
      h("input", { type: "checkbox", checked: prefs.notify, onchange: onNotify, "data-testid": "alert-notify" }), ` ✉ ${t("alerts.notify")}`));
}
