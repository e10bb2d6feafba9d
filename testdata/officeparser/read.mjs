// Reads .pptx/.docx files with officeparser, an implementation that is not
// ours, and prints what it found as JSON for the Go tests in shared/office:
// [{file, text, slides, headings: [{text, level}], notes: [text]}].
// TOOLING.md names toText(); officeparser 8 replaced it with to('text').
import { parseOffice } from 'officeparser';

function walk(nodes, visit) {
  for (const n of nodes || []) {
    visit(n);
    walk(n.children, visit);
  }
}

const out = [];
for (const file of process.argv.slice(2)) {
  const ast = await parseOffice(file);
  const headings = [];
  const notes = [];
  let slides = 0;
  walk(ast.content, (n) => {
    if (n.type === 'slide') {
      slides++;
      walk(n.notes, (m) => { if (m.text) notes.push(m.text); });
    }
    if (n.type === 'heading') headings.push({ text: n.text, level: (n.metadata || {}).level || 0 });
  });
  const text = (await ast.to('text')).value;
  out.push({ file, text, slides, headings, notes });
}
process.stdout.write(JSON.stringify(out));
