// Sortable and filterable tables, and stepping through an episode's rounds. No framework, no CDN.
"use strict";

function cellValue(row, index, numeric) {
  const cell = row.cells[index];
  const raw = cell.dataset.value !== undefined ? cell.dataset.value : cell.textContent.trim();
  if (!numeric) return raw.toLowerCase();
  const v = parseFloat(raw);
  return Number.isNaN(v) ? -Infinity : v; // "–" (no value) sorts below every number
}

function makeSortable(table) {
  const headers = table.tHead.rows[0].cells;
  Array.from(headers).forEach((th, index) => {
    if (th.dataset.type === "none") return; // a column of controls, nothing to sort by
    th.addEventListener("click", () => {
      const numeric = th.dataset.type === "num";
      const ascending = !th.classList.contains("sorted-asc");
      Array.from(headers).forEach((h) => h.classList.remove("sorted-asc", "sorted-desc"));
      th.classList.add(ascending ? "sorted-asc" : "sorted-desc");
      const body = table.tBodies[0];
      const rows = Array.from(body.rows);
      rows.sort((a, b) => {
        const x = cellValue(a, index, numeric), y = cellValue(b, index, numeric);
        return (x < y ? -1 : x > y ? 1 : 0) * (ascending ? 1 : -1);
      });
      rows.forEach((r) => body.appendChild(r));
    });
  });
}

function makeFilter(input, table) {
  input.addEventListener("input", () => {
    const words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
    Array.from(table.tBodies[0].rows).forEach((row) => {
      const text = row.textContent.toLowerCase();
      row.hidden = !words.every((w) => text.includes(w));
    });
  });
}

function makeRoundStepper() {
  const rounds = Array.from(document.querySelectorAll("section.round"));
  const label = document.getElementById("round-label");
  if (!label || rounds.length < 2) return;
  let current = 0;
  const show = (k) => {
    current = Math.max(0, Math.min(rounds.length - 1, k));
    rounds.forEach((r, i) => r.classList.toggle("current", i === current));
    label.textContent = `round ${current + 1} of ${rounds.length}`;
    rounds[current].scrollIntoView({ block: "start" });
  };
  document.getElementById("prev-round").addEventListener("click", () => show(current - 1));
  document.getElementById("next-round").addEventListener("click", () => show(current + 1));
  label.textContent = `round 1 of ${rounds.length}`;
  rounds[0].classList.add("current");
}

function makeBrickHover() {
  // Pointing at a brick in any end picture lights it up in every picture and in the bricks table.
  const tip = document.getElementById("brick-tip");
  if (!tip) return;
  const light = (id, on) => {
    document.querySelectorAll(`[data-brick="${CSS.escape(id)}"]`).forEach((el) => el.classList.toggle("hot", on));
  };
  document.querySelectorAll(".final-views .brick").forEach((g) => {
    g.addEventListener("mouseenter", () => { tip.textContent = g.dataset.text; light(g.dataset.brick, true); });
    g.addEventListener("mouseleave", () => light(g.dataset.brick, false));
  });
  const toggle = document.getElementById("show-scores");
  if (toggle) {
    toggle.addEventListener("change", () => document.querySelectorAll(".final-views:not([data-fixed])")
      .forEach((views) => views.classList.toggle("plain", !toggle.checked)));
  }
}

function formatEta(seconds) {
  return seconds === null || seconds === undefined ? "–" : `${(seconds / 60).toFixed(1)} min`;
}

function pollProgress(box) {
  // A running run's counts, ETA and running mean, refreshed in place; the page reloads once when it ends,
  // so its tables (drawn on the server) catch up.
  const set = (cls, text) => box.querySelectorAll(`.${cls}`).forEach((el) => { el.textContent = text; });
  const tick = async () => {
    let p;
    try {
      const answer = await fetch(box.dataset.progress, { credentials: "same-origin", cache: "no-store" });
      if (!answer.ok) return setTimeout(tick, 5000);
      p = await answer.json();
    } catch (err) {
      return setTimeout(tick, 5000); // the server restarting: try again later
    }
    const bar = box.querySelector(".p-bar");
    if (bar) { bar.max = p.total; bar.value = p.finished; bar.title = `${p.finished} of ${p.total} finished`; }
    for (const k of ["finished", "total", "done", "failed", "cancelled", "running", "queued"]) set(`p-${k}`, String(p[k]));
    set("p-eta", formatEta(p.eta_s));
    set("p-mean", p.mean === null ? "–" : p.mean);
    set("p-n", String(p.n_scored));
    if (p.finished >= p.total || !p.live) {
      box.dataset.live = "no";
      if (document.body.dataset.reloadWhenDone === "yes") window.location.reload();
      return;
    }
    setTimeout(tick, POLL_MS);
  };
  setTimeout(tick, POLL_MS);
}

const POLL_MS = 1500;

document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("table.sortable").forEach(makeSortable);
  const filter = document.getElementById("episode-filter");
  const episodes = document.getElementById("episodes");
  if (filter && episodes) makeFilter(filter, episodes);
  makeRoundStepper();
  makeBrickHover();
  document.querySelectorAll(".live-progress[data-live=yes]").forEach(pollProgress);
});
