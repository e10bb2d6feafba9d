// captured.mjs writes test/captured.ts: every request body, JSON answer and
// stream event captured from the running server (the examples of
// docs/protocol.md, which local/e2e's TestProtocolDoc keeps true, and the
// wire goldens of shared/protocol/testdata), each as an object literal
// assigned to the sdk type it must satisfy. `tsc --noEmit` over that file
// proves the types accept what the server really sends; object literals
// get TypeScript's excess-property checks, so a field the types lack fails
// too. It prints how many fixtures of each type it wrote.
import { readFile, writeFile, readdir } from 'node:fs/promises';
import Ajv2020 from 'ajv/dist/2020.js';

const repo = new URL('../../', import.meta.url);
const out = [];
const counts = {};

// The JSON Schema checks every fixture too (what a frontend validating with
// it, e.g. with Ajv, would see): the schema name of each sdk type, or null
// where the type is the AI SDK's (its chunks other than data parts).
const schema = JSON.parse(await readFile(new URL('sdk/schema/insightedge.schema.json', repo), 'utf8'));
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(schema);
const invalid = [];
function schemaName(type, value) {
  const research = /^T\.ResearchEvents\["(\w+)"\]$/.exec(type);
  if (research) return schema.$defs.ResearchEvents.properties[research[1]].$ref.split('/').pop();
  if (type === 'T.InsightUIMessageChunk') return value.type.startsWith('data-') ? 'DataUIPart' : null;
  if (type === 'T.InsightUIMessage') return 'UIMessage';
  if (type === 'T.InsightMessagesResponse') return null; // T.MessagesResponse checks the same answer
  return type.slice(2);
}

function add(type, value, where) {
  counts[type] = (counts[type] ?? 0) + 1;
  out.push(`// ${where}\nexport const f${out.length}: ${type} = ${JSON.stringify(value)};`);
  const name = schemaName(type, value);
  if (name && !ajv.validate(`${schema.$id}#/$defs/${name}`, value)) {
    invalid.push(`${where}: not a ${name}: ${ajv.errorsText(ajv.errors)}`);
  }
}

// requestType and answerType name the sdk type of a route's body and answer.
function requestType(method, path) {
  if (method !== 'POST') return null;
  if (/^\/api\/conversation(\/stream)?$/.test(path)) return 'T.ConversationRequest';
  if (path === '/api/workflow/generate') return 'T.WorkflowRequest';
  if (path === '/api/page/generate') return 'T.PageGenerateRequest';
  if (path === '/api/page/patch') return 'T.PagePatchRequest';
  if (path === '/api/research') return 'T.ResearchRequest';
  if (path === '/api/apps') return 'T.SaveAppRequest';
  if (/^\/api\/template\/sessions\/[^/]+\/events$/.test(path)) return 'T.TemplateClientEnvelope';
  return null;
}

function answerTypes(method, path, status) {
  if (status >= 400) return ['T.ErrorBody'];
  if (method === 'POST' && path === '/api/conversation') return ['T.ConversationResponse'];
  if (method === 'GET' && /\/messages(\?|$)/.test(path)) return ['T.MessagesResponse', 'T.InsightMessagesResponse'];
  if (method === 'POST' && /\/stop$/.test(path)) return ['T.StopResponse'];
  if (method === 'POST' && path === '/api/workflow/generate') return ['T.Blueprint'];
  if (method === 'POST' && path === '/api/research') return ['T.ResearchResponse'];
  if (method === 'GET' && path.startsWith('/api/files/')) return ['T.FileLink'];
  if (path === '/api/apps') return [method === 'POST' ? 'T.App' : 'T.AppsResponse'];
  if (method === 'GET' && /^\/api\/apps\/[^/]+$/.test(path)) return ['T.App'];
  if (method === 'POST' && /^\/api\/apps\/[^/]+\/run$/.test(path)) return ['T.AppRunResponse'];
  if (method === 'GET' && /^\/api\/apps\/[^/]+\/snapshots$/.test(path)) return ['T.AppSnapshotsResponse'];
  if (method === 'GET' && /^\/api\/apps\/[^/]+\/snapshots\/[^/]+$/.test(path)) return ['T.AppSnapshot'];
  return [];
}

// sseEvent adds one data: line of a stream by what it is.
function sseEvent(json, eventName, where, opaquePages) {
  if (json === '[DONE]') return;
  const v = JSON.parse(json);
  // shared/protocol's encoder golden passes a stand-in page through as raw
  // JSON: its shape is not a built page's (the page-build capture of
  // docs/protocol.md checks real ones), so only the event around it is checked.
  if (opaquePages && v.type === 'COMPLETE' && v.result?.page) v.result.page = null;
  if (typeof v.event === 'string') add('T.TemplateServerEnvelope', v, where);
  else if (eventName) add(`T.ResearchEvents[${JSON.stringify(eventName)}]`, v, where);
  else if (/^[A-Z_]+$/.test(v.type)) add('T.PageEvent', v, where);
  else add('T.InsightUIMessageChunk', v, where);
}

// readJSON parses the JSON value starting at lines[i] (one line or an
// indented block); it returns [value, next index] or [undefined, i] when
// the text there is not JSON (an abbreviated example).
function readJSON(lines, i) {
  let text = '';
  for (let j = i; j < lines.length && lines[j] !== ''; j++) {
    text += lines[j] + '\n';
    try { return [JSON.parse(text), j + 1]; } catch { /* not complete yet */ }
  }
  return [undefined, i + 1];
}

function captureBlock(lines, where, opaquePages = false) {
  let method, path, status, eventName;
  for (let i = 0; i < lines.length;) {
    const line = lines[i];
    const at = `${where}+${i + 1}`;
    let m;
    if ((m = /^(GET|POST|DELETE) (\S+)$/.exec(line))) {
      [method, path, status, eventName] = [m[1], m[2], 0, undefined];
      i++;
      if (lines[i]?.startsWith('{')) {
        const [v, next] = readJSON(lines, i);
        const t = requestType(method, path);
        if (v !== undefined && t) add(t, v, at);
        i = next;
      }
    } else if ((m = /^(\d{3}) (\S+)$/.exec(line))) {
      status = Number(m[1]);
      i++;
      if (m[2] === 'application/json' && lines[i]?.startsWith('{')) {
        const [v, next] = readJSON(lines, i);
        if (v !== undefined) for (const t of answerTypes(method, path, status)) add(t, v, at);
        i = next;
      }
    } else if ((m = /^event: (\S+)$/.exec(line))) {
      eventName = m[1];
      i++;
    } else if (line.startsWith('data: ')) {
      sseEvent(line.slice(6), eventName, at, opaquePages);
      eventName = undefined;
      i++;
    } else if (line.startsWith('< {')) {
      add('T.TemplateServerEnvelope', JSON.parse(line.slice(2)), at);
      i++;
    } else if (line.startsWith('> {')) {
      add('T.TemplateClientEnvelope', JSON.parse(line.slice(2)), at);
      i++;
    } else {
      i++;
    }
  }
}

async function protocolDoc() {
  const lines = (await readFile(new URL('docs/protocol.md', repo), 'utf8')).split('\n');
  let start = -1;
  for (let i = 0; i < lines.length; i++) {
    if (/^<!-- capture:[\w-]+ -->$/.test(lines[i])) start = i + 2; // after the ```text line
    else if (lines[i] === '<!-- /capture -->' && start >= 0) {
      captureBlock(lines.slice(start, i - 1), `docs/protocol.md:${start + 1}`);
      start = -1;
    }
  }
}

async function goldens() {
  const dir = new URL('shared/protocol/testdata/', repo);
  for (const f of (await readdir(dir)).sort()) {
    const text = await readFile(new URL(f, dir), 'utf8');
    const where = `shared/protocol/testdata/${f}`;
    if (f.startsWith('assembled')) {
      add('T.InsightUIMessage', JSON.parse(text), where);
      add('T.UIMessage', JSON.parse(text), where);
    } else {
      captureBlock(text.split('\n'), where, true);
    }
  }
}

await protocolDoc();
await goldens();
const header = `// Written by scripts/captured.mjs (npm test): do not edit.\nimport type * as T from '../index';\n`;
await writeFile(new URL('test/captured.ts', new URL('..', import.meta.url)), header + out.join('\n') + '\n');
console.log(`captured.ts: ${out.length} fixtures`, counts);
if (invalid.length) {
  console.error(`the JSON Schema refuses ${invalid.length} captured values:\n` + invalid.join('\n'));
  process.exit(1);
}
