/** TS source for a value: objects one key a line, arrays of numbers on one line, full double precision. */
export function toSource(value: unknown, indent = ''): string {
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v === 'number' || typeof v === 'string')) {
      return `[${value.map((v) => JSON.stringify(v)).join(', ')}]`;
    }
    return `[\n${value.map((v) => `${inner}${toSource(v, inner)},`).join('\n')}\n${indent}]`;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]) => {
      const key = /^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k);
      return `${inner}${key}: ${toSource(v, inner)},`;
    });
    return `{\n${entries.join('\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}
