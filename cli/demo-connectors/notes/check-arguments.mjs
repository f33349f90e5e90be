// A checker for the small JSON Schema subset the `notes` tools declare (object, string,
// boolean, array; properties, required, items, minLength, default). Plain Node 20, no
// dependencies: the connector runs from an installed release folder without node_modules.

const typeOf = (value) => (Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value);

function check(schema, value, path, problems) {
  const where = path || 'arguments';
  if (schema.type && typeOf(value) !== schema.type) {
    const article = /^[aeiou]/.test(schema.type) ? 'an' : 'a';
    problems.push(`${where} must be ${article} ${schema.type}`);
    return;
  }
  if (schema.type === 'string' && schema.minLength && value.length < schema.minLength) {
    problems.push(`${where} must have at least ${schema.minLength} character(s)`);
  }
  if (schema.type === 'array' && schema.items) {
    for (const [i, item] of value.entries()) check(schema.items, item, `${where}[${i}]`, problems);
  }
  if (schema.type === 'object') {
    for (const name of schema.required ?? []) {
      if (value[name] === undefined) problems.push(`${path ? `${path}.` : ''}${name} is required`);
    }
    for (const [name, property] of Object.entries(schema.properties ?? {})) {
      if (value[name] !== undefined) {
        check(property, value[name], path ? `${path}.${name}` : name, problems);
      }
    }
  }
}

/**
 * Checks tool arguments against an object schema. Returns `{ value }` with the declared
 * properties (defaults filled in, unknown ones dropped) or `{ problems }` (readable lines).
 */
export function checkArguments(schema, args = {}) {
  const problems = [];
  check(schema, args, '', problems);
  if (problems.length > 0) return { problems };
  const value = {};
  for (const [name, property] of Object.entries(schema.properties)) {
    const given = args[name] ?? property.default;
    if (given !== undefined) value[name] = structuredClone(given);
  }
  return { value };
}
