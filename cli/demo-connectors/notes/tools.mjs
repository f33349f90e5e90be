// The tools of the `notes` demo connector: add_note, list_notes, delete_note, each with
// the JSON Schemas `tools/list` publishes. Plain Node 20, no dependencies: the connector
// runs from an installed release folder that carries no node_modules.
import { randomUUID } from 'node:crypto';
import { checkArguments } from './check-arguments.mjs';
import { updateNotes } from './notes-file.mjs';

const strings = { type: 'array', items: { type: 'string' } };
const noteSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    text: { type: 'string' },
    tags: strings,
    createdAt: { type: 'string' },
  },
  required: ['id', 'text', 'tags', 'createdAt'],
  additionalProperties: false,
};
const output = (properties) => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

/** Every tool: its published definition plus `run(args)` resolving structured content. */
export const tools = [
  {
    name: 'add_note',
    title: 'Add a note',
    description: 'Saves a short note, optionally with tags, and returns it with its id.',
    inputSchema: {
      type: 'object',
      properties: {
        text: { type: 'string', minLength: 1, description: 'The note' },
        tags: { ...strings, default: [], description: 'Tags to find the note by' },
      },
      required: ['text'],
    },
    outputSchema: noteSchema,
    run: ({ text, tags }) =>
      updateNotes((notes) => {
        const note = {
          id: randomUUID().slice(0, 8),
          text,
          tags,
          createdAt: new Date().toISOString(),
        };
        return { notes: [...notes, note], result: note };
      }),
  },
  {
    name: 'list_notes',
    title: 'List notes',
    description: 'Lists notes, newest last; filter by a tag and/or a word in the text.',
    inputSchema: {
      type: 'object',
      properties: {
        tag: { type: 'string', description: 'Only notes with this tag' },
        query: { type: 'string', description: 'Only notes whose text contains this (any case)' },
      },
    },
    outputSchema: output({ notes: { type: 'array', items: noteSchema } }),
    annotations: { readOnlyHint: true },
    run: ({ tag, query }) =>
      updateNotes((notes) => {
        const needle = query?.toLowerCase();
        const found = notes.filter(
          (note) =>
            (tag === undefined || note.tags.includes(tag)) &&
            (needle === undefined || note.text.toLowerCase().includes(needle)),
        );
        return { notes, result: { notes: found } };
      }),
  },
  {
    name: 'delete_note',
    title: 'Delete a note',
    description: 'Deletes the note with the given id.',
    inputSchema: {
      type: 'object',
      properties: { id: { type: 'string', description: 'Id returned by add_note' } },
      required: ['id'],
    },
    outputSchema: output({ deleted: { type: 'boolean' } }),
    annotations: { destructiveHint: true },
    run: ({ id }) =>
      updateNotes((notes) => {
        const kept = notes.filter((note) => note.id !== id);
        const deleted = kept.length !== notes.length;
        return { notes: deleted ? kept : notes, result: { deleted } };
      }),
  },
];

/** The tool definitions as `tools/list` returns them. */
export const toolList = tools.map(({ run, ...definition }) => definition);

const text = (value) => [{ type: 'text', text: value }];

/**
 * Runs tool `name` with `args`: a CallToolResult, with `isError` for invalid arguments or a
 * failed run; undefined when there is no such tool.
 */
export async function callTool(name, args) {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) return undefined;
  const checked = checkArguments(tool.inputSchema, args);
  if (checked.problems) {
    const lines = checked.problems.map((problem) => `- ${problem}`).join('\n');
    return { content: text(`Invalid arguments for ${name}:\n${lines}`), isError: true };
  }
  try {
    const data = await tool.run(checked.value);
    return { content: text(JSON.stringify(data, null, 2)), structuredContent: data };
  } catch (error) {
    return { content: text(`${name} failed: ${error.message}`), isError: true };
  }
}
