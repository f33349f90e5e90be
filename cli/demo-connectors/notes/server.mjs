#!/usr/bin/env node
// The `notes` demo connector: an MCP server over stdio, written with the MCP TypeScript
// SDK v2. Notes live in one JSON file: $NOTES_FILE, else <tutti home>/data/notes.json
// (tutti home: $TUTTI_HOME, else ~/.tutti). Writes go to a temp file renamed over it.
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

const file =
  process.env.NOTES_FILE ??
  join(process.env.TUTTI_HOME ?? join(homedir(), '.tutti'), 'data', 'notes.json');

async function load() {
  try {
    return JSON.parse(await readFile(file, 'utf8')).notes;
  } catch (error) {
    if (error.code === 'ENOENT') return [];
    throw error;
  }
}

async function save(notes) {
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify({ notes }, null, 2)}\n`);
  await rename(temp, file);
}

const noteSchema = z.object({
  id: z.string(),
  text: z.string(),
  tags: z.array(z.string()),
  createdAt: z.string(),
});

const result = (data) => ({
  content: [{ type: 'text', text: JSON.stringify(data, null, 2) }],
  structuredContent: data,
});

function createServer() {
  const server = new McpServer({ name: 'notes', version: '1.0.0' });

  server.registerTool(
    'add_note',
    {
      title: 'Add a note',
      description: 'Saves a short note, optionally with tags, and returns it with its id.',
      inputSchema: z.object({
        text: z.string().min(1).describe('The note'),
        tags: z.array(z.string()).default([]).describe('Tags to find the note by'),
      }),
      outputSchema: noteSchema,
    },
    async ({ text, tags }) => {
      const note = {
        id: randomUUID().slice(0, 8),
        text,
        tags,
        createdAt: new Date().toISOString(),
      };
      await save([...(await load()), note]);
      return result(note);
    },
  );

  server.registerTool(
    'list_notes',
    {
      title: 'List notes',
      description: 'Lists notes, newest last; filter by a tag and/or a word in the text.',
      inputSchema: z.object({
        tag: z.string().optional().describe('Only notes with this tag'),
        query: z.string().optional().describe('Only notes whose text contains this (any case)'),
      }),
      outputSchema: z.object({ notes: z.array(noteSchema) }),
      annotations: { readOnlyHint: true },
    },
    async ({ tag, query }) => {
      const needle = query?.toLowerCase();
      const notes = (await load()).filter(
        (note) =>
          (tag === undefined || note.tags.includes(tag)) &&
          (needle === undefined || note.text.toLowerCase().includes(needle)),
      );
      return result({ notes });
    },
  );

  server.registerTool(
    'delete_note',
    {
      title: 'Delete a note',
      description: 'Deletes the note with the given id.',
      inputSchema: z.object({ id: z.string().describe('Id returned by add_note') }),
      outputSchema: z.object({ deleted: z.boolean() }),
      annotations: { destructiveHint: true },
    },
    async ({ id }) => {
      const notes = await load();
      const kept = notes.filter((note) => note.id !== id);
      if (kept.length !== notes.length) await save(kept);
      return result({ deleted: kept.length !== notes.length });
    },
  );

  return server;
}

serveStdio(createServer);
