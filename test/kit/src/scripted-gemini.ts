/**
 * The Gemini API side of the scripted model (test support): the answer writer, and the
 * JSON-schema side requests Gemini CLI makes for its own routing and next-speaker checks,
 * answered with the smallest object the schema allows rather than by the test's script.
 */
import type { ServerResponse } from 'node:http';

/** What the model answers (the scripted model's `ModelReply`). */
type Reply =
  | { readonly text: string }
  | { readonly toolCall: { readonly name: string; readonly arguments: Record<string, unknown> } };

/** The JSON schema a Gemini request asks its answer to follow, if it asks for one. */
export function jsonSchemaOf(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const config = body.generationConfig as Record<string, unknown> | undefined;
  const schema = config?.responseJsonSchema ?? config?.responseSchema;
  if (schema && typeof schema === 'object') return schema as Record<string, unknown>;
  return config?.responseMimeType === 'application/json' ? {} : undefined;
}

/** The smallest value `schema` allows: its required properties, first enum values. */
export function smallest(schema: Record<string, unknown>): unknown {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const type = String(schema.type ?? 'object').toLowerCase();
  if (type === 'string') return 'scripted';
  if (type === 'number' || type === 'integer') return 1;
  if (type === 'boolean') return false;
  if (type === 'array') return [];
  const properties = (schema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  return Object.fromEntries(
    required.filter((name) => properties[name]).map((name) => [name, smallest(properties[name]!)]),
  );
}

/** Writes `reply` as a Gemini API answer: one SSE chunk when `stream`, else one JSON body. */
export function geminiReply(res: ServerResponse, reply: Reply, stream: boolean): void {
  const parts =
    'text' in reply
      ? [{ text: reply.text }]
      : [{ functionCall: { name: reply.toolCall.name, args: reply.toolCall.arguments } }];
  const chunk = {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
    modelVersion: 'scripted-model',
  };
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(chunk));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.end(`data: ${JSON.stringify(chunk)}\r\n\r\n`);
}
