// Runs a state machine definition with aws-local-stepfunctions, each Task
// state's work done by the Go test's HTTP shim (POST <shim>/task/<name>,
// where <name> is the ${Placeholder} of the state's Resource).
//
//   node run-workflow.mjs <definition.asl.json> <shim URL>   (input on stdin)
//
// Prints one JSON line: {"status":"SUCCEEDED","output":...,"entered":{...}}
// or {"status":"FAILED","error":...,"cause":...,"entered":{...}}, where
// entered counts the StateEntered events per state.

// aws-local-stepfunctions 3 uses Promise.withResolvers (Node >= 22); Node 20
// needs this before the library is loaded, hence the dynamic import below.
Promise.withResolvers ??= function withResolvers() {
  let resolve, reject;
  const promise = new this((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

const { readFileSync } = await import('node:fs');
const { StateMachine } = await import('aws-local-stepfunctions');

const [definitionPath, shim] = process.argv.slice(2);
if (!definitionPath || !shim) {
  console.error('usage: node run-workflow.mjs <definition.asl.json> <shim URL> < input.json');
  process.exit(2);
}
const definition = JSON.parse(readFileSync(definitionPath, 'utf8'));
const input = JSON.parse(readFileSync(0, 'utf8'));

// Every Task state, nested ones included, with the placeholder it calls.
// The placeholders become syntactically valid Lambda ARNs for validation;
// the overrides below mean no ARN is ever called.
const handlers = {};
function bind(states) {
  for (const [name, state] of Object.entries(states)) {
    if (state.Type === 'Task') {
      const m = /^\$\{([A-Za-z0-9_]+)\}$/.exec(state.Resource);
      // aws-local-stepfunctions 3.0.0 has no .waitForTaskToken (no task
      // token in the context object, no SendTaskSuccess): such a state is
      // left unbound, and a scenario must not enter it (the Go test checks).
      if (!m && state.Resource.endsWith('.waitForTaskToken')) continue;
      if (!m) throw new Error(`state ${name}: resource ${state.Resource} is not a \${Placeholder}`);
      const task = m[1];
      state.Resource = `arn:aws:lambda:us-east-1:123456789012:function:${task}`;
      handlers[name] = async (taskInput) => {
        const res = await fetch(`${shim}/task/${task}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(taskInput),
        });
        const body = await res.json();
        if (!res.ok) {
          const err = new Error(body.errorMessage);
          err.name = body.errorType; // what Retry and Catch match
          throw err;
        }
        return body;
      };
    }
    const inner = state.ItemProcessor ?? state.Iterator;
    if (inner) bind(inner.States);
    for (const branch of state.Branches ?? []) bind(branch.States);
  }
}
bind(definition.States);

const machine = new StateMachine(definition);
const execution = machine.run(input, { overrides: { taskResourceLocalHandlers: handlers } });
const entered = {};
const counting = (async () => {
  for await (const ev of execution.eventLogs) {
    if (ev.type === 'StateEntered') entered[ev.state.name] = (entered[ev.state.name] ?? 0) + 1;
  }
})();
let report;
try {
  const output = await execution.result;
  report = { status: 'SUCCEEDED', output };
} catch (err) {
  report = { status: 'FAILED', error: err.name, cause: err.message };
}
await counting;
report.entered = entered;
process.stdout.write(JSON.stringify(report) + '\n');
