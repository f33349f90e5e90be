/** Minimal pino-compatible logger the engine writes to. Never given secrets. */
export interface EngineLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}
