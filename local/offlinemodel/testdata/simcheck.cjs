// Runs a simulation page's script in node with a minimal DOM and a fake
// clock, as a teacher would use the page: argv[2] is the script, argv[3]
// the elements' initial values by id, argv[4] the steps:
// {"set": {id: value}, "fire": id, "event": "input"|"change"}, {"click": id},
// {"frames": [ms, …]} (animation frames at those times), {"snap": name}.
// Prints {name: {id: textContent}} and the number of canvas draws.
'use strict';
const fs = require('fs');
const vm = require('vm');
const script = fs.readFileSync(process.argv[2], 'utf8');
const initial = JSON.parse(process.argv[3]);
const steps = JSON.parse(process.argv[4]);
let draws = 0;
const ctx2d = new Proxy({}, {
  get(t, k) { if (k in t) return t[k]; return () => { draws++; }; },
  set(t, k, v) { t[k] = v; return true; },
});
const elements = {};
function element(id) {
  if (!elements[id]) {
    elements[id] = {
      id, value: initial[id] !== undefined ? String(initial[id]) : '', textContent: '', max: '', width: 420, height: 420,
      handlers: {}, style: {},
      addEventListener(ev, fn) { (this.handlers[ev] = this.handlers[ev] || []).push(fn); },
      getContext() { return ctx2d; },
      fire(ev) { (this.handlers[ev] || []).forEach((fn) => fn({ type: ev, target: this })); },
    };
  }
  return elements[id];
}
let frames = [];
const sandbox = {
  document: { getElementById: (id) => (id in initial || id in elements ? element(id) : null) },
  requestAnimationFrame: (fn) => { frames.push(fn); return frames.length; },
  Math, parseFloat, isFinite, String, JSON,
};
for (const id of Object.keys(initial)) element(id);
vm.runInNewContext(script, sandbox);
const out = { snaps: {}, draws: 0 };
for (const s of steps) {
  if (s.set) for (const [id, v] of Object.entries(s.set)) element(id).value = String(v);
  if (s.fire) element(s.fire).fire(s.event || 'input');
  if (s.click) element(s.click).fire('click');
  if (s.frames) for (const ms of s.frames) { const due = frames; frames = []; due.forEach((fn) => fn(ms)); }
  if (s.snap) {
    const snap = {};
    for (const [id, e] of Object.entries(elements)) snap[id] = e.textContent || e.value;
    out.snaps[s.snap] = snap;
  }
}
out.draws = draws;
process.stdout.write(JSON.stringify(out));
