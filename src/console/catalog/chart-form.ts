import type { SizeChartResponse } from '../../catalog/dto/size-chart.dto.js';
import type { SizeDefinition } from '../../catalog/catalog.entities.js';
import type { FieldError } from '../../common/problems/problem-error.js';
import { ZONES, type Zone } from '../../sizing/types.js';

/** Each zone as a merchant calls it. */
export const ZONE_LABELS: Readonly<Record<string, string>> = {
  chest: 'Chest or bust',
  waist: 'Waist',
  hip: 'Hip',
  inseam: 'Inside leg',
  neck: 'Neck',
  sleeve: 'Sleeve',
  foot_length: 'Foot length',
  head: 'Head',
  thigh: 'Thigh',
};

/** A chart as its edit form holds it: text as typed, so that a refused form shows what was sent. */
export interface ChartForm {
  readonly name: string;
  readonly zones: readonly string[];
  readonly rows: ReadonlyArray<{ readonly label: string; readonly cells: Readonly<Record<string, { min: string; max: string }>> }>;
}

/** The error of each cell, by the API's field (`sizes[2].measurements.chest`, `sizes[0].label`). */
export type CellErrors = Readonly<Record<string, string>>;

/** Empty rows under the sizes, to add some. */
const BLANK_ROWS = 2;

/** The id of a cell's input: `sizes[2].measurements.chest` → `size-2-chest`. */
export function chartFieldId(field: string): string {
  const match = /^sizes\[(\d+)\](?:\.(label)|\.measurements\.(\w+))?/.exec(field);
  if (!match) return field.replace(/[^\w-]/g, '-');
  return match[2] ? `size-${match[1]}-label` : match[3] ? `size-${match[1]}-${match[3]}` : `size-${match[1]}-label`;
}

export function chartToForm(chart: Pick<SizeChartResponse, 'name' | 'sizes'>, zones = zonesOf(chart.sizes)): ChartForm {
  const rows = chart.sizes.map((size) => ({
    label: size.label,
    cells: Object.fromEntries(
      zones.flatMap((zone) => {
        const range = size.measurements[zone as keyof SizeDefinition['measurements']];
        return range ? [[zone, { min: String(range.min), max: String(range.max) }]] : [];
      }),
    ),
  }));
  return { name: chart.name, zones, rows: [...rows, ...blankRows()] };
}

const blankRows = () => Array.from({ length: BLANK_ROWS }, () => ({ label: '', cells: {} }));

const zonesOf = (sizes: readonly SizeDefinition[]): Zone[] =>
  ZONES.filter((zone) => sizes.some((size) => size.measurements[zone] !== undefined));

/** The edit form as sent: its zones and rows, at most 60 rows, zones limited to the engine's. */
export function formToChart(body: Record<string, unknown>): ChartForm {
  const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : '');
  const zones = text('zones')
    .split(',')
    .filter((zone): zone is (typeof ZONES)[number] => (ZONES as readonly string[]).includes(zone));
  const count = Math.min(Number.parseInt(text('rows'), 10) || 0, 60);
  const rows = Array.from({ length: count }, (_, i) => ({
    label: text(`size_${i}_label`).trim(),
    cells: Object.fromEntries(
      zones.map((zone) => [zone, { min: text(`size_${i}_${zone}_min`).trim(), max: text(`size_${i}_${zone}_max`).trim() }]),
    ),
  }));
  return { name: text('name'), zones, rows };
}

/**
 * The sizes the form means: rows with nothing typed are dropped (and the rest renumbered, as the API will see them);
 * a figure that is not a number, or a range given by one end, is refused here, on its cell.
 */
export function formSizes(form: ChartForm): { sizes: SizeDefinition[]; rowOf: number[]; errors: FieldError[] } {
  const sizes: SizeDefinition[] = [];
  const rowOf: number[] = [];
  const errors: FieldError[] = [];
  form.rows.forEach((row, i) => {
    const cells = Object.entries(row.cells);
    if (row.label === '' && cells.every(([, cell]) => cell.min === '' && cell.max === '')) return;
    const measurements: Record<string, { min: number; max: number }> = {};
    for (const [zone, cell] of cells) {
      if (cell.min === '' && cell.max === '') continue;
      const field = `sizes[${i}].measurements.${zone}`;
      const min = readNumber(cell.min);
      const max = readNumber(cell.max);
      if (cell.min === '' || cell.max === '') {
        errors.push({ field, code: 'must_be_range', message: 'Give both ends of the range, or neither' });
      } else if (min === null || max === null) {
        errors.push({ field, code: 'must_be_range', message: 'Write each end as a number, such as 86 or 86.5' });
      } else {
        measurements[zone] = { min, max };
      }
    }
    rowOf.push(i);
    sizes.push({ label: row.label, measurements });
  });
  return { sizes, rowOf, errors };
}

/** A number as people type it: `86`, `86.5`, `86,5`. */
function readNumber(text: string): number | null {
  if (!/^-?\d+(?:[.,]\d+)?$/.test(text)) return null;
  return Number(text.replace(',', '.'));
}

/**
 * The API's errors on `sizes[k]…` (k counting only the sizes sent) moved to the form's row; others kept as they are.
 */
export function toFormRows(errors: readonly FieldError[], rowOf: readonly number[]): FieldError[] {
  return errors.map((error) => {
    const match = /^sizes\[(\d+)\](.*)$/.exec(error.field);
    if (!match) return error;
    const row = rowOf[Number(match[1])];
    return row === undefined ? error : { ...error, field: `sizes[${row}]${match[2]}` };
  });
}

/** The cell each error belongs to (a label, or a zone's range), first message kept; an error on a whole size names its label. */
export function cellErrors(errors: readonly FieldError[]): Record<string, string> {
  const cells: Record<string, string> = {};
  for (const error of errors) {
    const match = /^(sizes\[\d+\])(?:\.(label)|\.measurements\.(\w+))?/.exec(error.field);
    if (!match) continue;
    const key = match[2] ? `${match[1]}.label` : match[3] ? `${match[1]}.measurements.${match[3]}` : `${match[1]}.label`;
    cells[key] ??= error.message;
  }
  return cells;
}

// ———————————————————————————————————————— CSV ————————————————————————————————————————

/** A chart as CSV: `size`, then `<zone>_min`, `<zone>_max` for each zone it states. */
export function chartToCsv(chart: Pick<SizeChartResponse, 'sizes'>): string {
  const zones = zonesOf(chart.sizes);
  const header = ['size', ...zones.flatMap((zone) => [`${zone}_min`, `${zone}_max`])];
  const rows = chart.sizes.map((size) => [
    size.label,
    ...zones.flatMap((zone) => {
      const range = size.measurements[zone];
      return range ? [String(range.min), String(range.max)] : ['', ''];
    }),
  ]);
  return [header, ...rows].map((row) => row.map(csvCell).join(',')).join('\r\n') + '\r\n';
}

/** Quoted when it holds a comma, a quote or a line break; a leading =, +, - or @ is quoted too so spreadsheets do not run it. */
function csvCell(value: string): string {
  const guarded = /^[=+\-@]/.test(value) && !/^-?\d/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(guarded) || guarded !== value ? `"${guarded.replace(/"/g, '""')}"` : guarded;
}

/** RFC 4180 records: fields split by commas (or semicolons, as spreadsheets in comma-decimal locales write), quotes doubled inside quotes. */
export function parseCsv(text: string): string[][] {
  const source = text.replace(/^\uFEFF/, '');
  const firstLine = source.split(/\r?\n/, 1)[0] ?? '';
  const separator = firstLine.includes(';') && !firstLine.includes(',') ? ';' : ',';
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (quoted) {
      if (c === '"' && source[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c === '"' && field === '') {
      quoted = true;
    } else if (c === separator) {
      record.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && source[i + 1] === '\n') i++;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else {
      field += c;
    }
  }
  if (field !== '' || record.length) {
    record.push(field);
    records.push(record);
  }
  return records.filter((r) => r.some((cell) => cell.trim() !== ''));
}

export interface CsvImportError {
  /** The row as a spreadsheet numbers it (the header is row 1). */
  readonly row?: number;
  readonly column?: string;
  readonly message: string;
}

export type CsvImportResult =
  | { readonly ok: true; readonly sizes: SizeDefinition[] }
  | { readonly ok: false; readonly errors: readonly CsvImportError[]; readonly table?: readonly (readonly string[])[] };

/** The chart's sizes a CSV gives; its own mistakes (columns, numbers) each named by row and column. */
export function csvToSizes(text: string): CsvImportResult {
  const table = parseCsv(text).map((row) => row.map((cell) => cell.trim()));
  if (table.length < 2) return { ok: false, errors: [{ message: 'The file needs a header row and at least one size' }] };
  const header = table[0].map((cell) => cell.toLowerCase());
  const errors: CsvImportError[] = [];
  if (header[0] !== 'size') errors.push({ row: 1, column: table[0][0] || 'A', message: 'The first column must be named size' });
  const columns = new Map<string, { zone: string; end: 'min' | 'max' }>();
  header.slice(1).forEach((name, j) => {
    const match = /^(\w+?)_(min|max)$/.exec(name);
    if (!match || !(ZONES as readonly string[]).includes(match[1])) {
      errors.push({
        row: 1,
        column: table[0][j + 1] || `column ${j + 2}`,
        message: `Name columns like chest_min and chest_max; measurements are ${ZONES.join(', ')}`,
      });
    } else {
      columns.set(name, { zone: match[1], end: match[2] as 'min' | 'max' });
    }
  });
  if (errors.length) return { ok: false, errors, table };
  const sizes: SizeDefinition[] = table.slice(1).map((cells, i) => {
    const measurements: Record<string, { min: number; max: number }> = {};
    const partial: Record<string, { min?: number; max?: number }> = {};
    const unread = new Set<string>();
    header.slice(1).forEach((name, j) => {
      const cell = cells[j + 1] ?? '';
      if (cell === '') return;
      const value = readNumber(cell);
      const column = columns.get(name) as { zone: string; end: 'min' | 'max' };
      if (value === null) {
        errors.push({ row: i + 2, column: table[0][j + 1], message: `“${cell}” is not a number` });
        unread.add(column.zone);
        return;
      }
      (partial[column.zone] ??= {})[column.end] = value;
    });
    for (const [zone, range] of Object.entries(partial)) {
      if (unread.has(zone)) continue;
      if (range.min === undefined || range.max === undefined) {
        errors.push({
          row: i + 2,
          column: `${zone}_${range.min === undefined ? 'min' : 'max'}`,
          message: 'Give both ends of the range, or neither',
        });
      } else {
        measurements[zone] = { min: range.min, max: range.max };
      }
    }
    if (cells.length > header.length)
      errors.push({ row: i + 2, message: `This row has ${cells.length} cells; the header names ${header.length}` });
    return { label: cells[0] ?? '', measurements };
  });
  return errors.length ? { ok: false, errors, table } : { ok: true, sizes };
}

/** The catalog's refusals of imported sizes (`sizes[k]…`), as rows and columns of the file. */
export function csvErrors(errors: readonly FieldError[]): CsvImportError[] {
  return errors.map((error) => {
    const match = /^sizes\[(\d+)\](?:\.(label)|\.measurements\.(\w+))?/.exec(error.field);
    if (!match) return { message: error.message };
    const row = Number(match[1]) + 2;
    if (match[2]) return { row, column: 'size', message: error.message };
    if (match[3]) return { row, column: `${match[3]}_min`, message: error.message };
    return { row, message: error.message };
  });
}
