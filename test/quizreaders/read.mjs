// Independent readers of the quiz exports (issue 31), driven by the Go
// tests of shared/office/quizexport:
//   node read.mjs gift FILE   prints gift-pegjs's parse of FILE as JSON
//   node read.mjs xlsx FILE   prints each sheet's rows (cell texts) as JSON:
//                             [{name, rows: [[cell, ...], ...]}]
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const [mode, file] = process.argv.slice(2);

if (mode === 'gift') {
  const { parse } = require('gift-pegjs');
  const text = await readFile(file, 'utf8');
  process.stdout.write(JSON.stringify(parse(text)));
} else if (mode === 'xlsx') {
  const ExcelJS = require('exceljs');
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(file);
  const sheets = [];
  wb.eachSheet((ws) => {
    const rows = [];
    for (let r = 1; r <= ws.rowCount; r++) {
      const row = ws.getRow(r);
      const cells = [];
      for (let c = 1; c <= Math.max(row.cellCount, 0); c++) {
        const v = row.getCell(c).value;
        cells.push(v === null || v === undefined ? '' : String(v));
      }
      rows.push(cells);
    }
    sheets.push({ name: ws.name, rows });
  });
  process.stdout.write(JSON.stringify(sheets));
} else {
  process.stderr.write('usage: node read.mjs gift|xlsx FILE\n');
  process.exit(2);
}
