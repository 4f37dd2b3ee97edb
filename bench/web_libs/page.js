// Times one library (?lib=preact|htm|lit|uhtml|dom) over a recorded Waterfall Park game: each step
// applies the delta's ops to a copy of the view (as the client does), works out what to show, draws
// it and forces style and layout. window.bench(passes) runs the whole game `passes` times, each time
// into a fresh element, and returns the first draw and every step's time in ms.
//
// It also counts, outside the timing, whether each button on the board before a delta is the very
// same element after it (when it is still a button): a press and its release that straddle a delta
// make a click only then.
import { applyPatch } from "fast-json-patch";
import { model } from "./model.js";

const lib = new URL(location.href).searchParams.get("lib");
const { draw } = await import(`./draw_${lib}.js`);
const data = await (await fetch("./views.json")).json();

window.bench = (passes) => {
  const first = [];
  const steps = [];
  let kept = 0;
  let replaced = 0;
  const app = document.getElementById("app");
  for (let p = 0; p < passes; p++) {
    const root = document.createElement("div");
    app.replaceChildren(root);
    let view = data.view;
    let t0 = performance.now();
    draw(root, model(view));
    void root.offsetHeight;
    first.push(performance.now() - t0);
    for (const ops of data.steps) {
      const under = [...root.querySelectorAll("button[data-testid=wp-cell]")];
      t0 = performance.now();
      view = applyPatch(view, ops, true, false).newDocument;
      draw(root, model(view));
      void root.offsetHeight;
      steps.push(performance.now() - t0);
      for (const b of under) {
        const now = root.querySelector(`button[data-testid=wp-cell][data-n="${b.dataset.n}"]`);
        if (now === b) kept += 1;
        else if (now) replaced += 1;
      }
    }
  }
  return { first, steps, kept, replaced, cells: app.querySelectorAll("[data-testid=wp-cell]").length,
    elements: app.querySelectorAll("*").length };
};
window.ready = true;
