/**
 * MCP stdio client transport over a supervised process group.
 *
 * The SDK's `StdioClientTransport` is not used because it spawns without `detached`
 * (the server shares the daemon's process group), merges a default environment into the
 * one given, and on close signals only the direct child, so grandchildren survive.
 */
import {
  type JSONRPCMessage,
  ReadBuffer,
  SdkError,
  SdkErrorCode,
  serializeMessage,
  type Transport,
} from '@modelcontextprotocol/client';
import type {
  ProcessExitInfo,
  ProcessSupervisor,
  SpawnGroupOptions,
  SupervisedProcess,
} from '../process/index.js';

/** A Transport whose `start()` spawns the server as the leader of its own group. */
export class ProcessGroupTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  readonly #supervisor: ProcessSupervisor;
  readonly #spec: SpawnGroupOptions;
  readonly #readBuffer = new ReadBuffer();
  #process: SupervisedProcess | undefined;
  #exitInfo: ProcessExitInfo | undefined;
  #closedFired = false;

  constructor(supervisor: ProcessSupervisor, spec: SpawnGroupOptions) {
    this.#supervisor = supervisor;
    this.#spec = spec;
  }

  /** The running process, once started. */
  get process(): SupervisedProcess | undefined {
    return this.#process;
  }

  /** How the process ended, once it did. */
  get exitInfo(): ProcessExitInfo | undefined {
    return this.#exitInfo;
  }

  async start(): Promise<void> {
    if (this.#process) throw new Error('ProcessGroupTransport already started');
    const proc = await this.#supervisor.spawn(this.#spec);
    this.#process = proc;
    proc.stdout.on('data', (chunk: Buffer) => {
      try {
        this.#readBuffer.append(chunk);
      } catch (error) {
        // One message over the buffer bound (10 MB): the stream cannot be trusted any more.
        this.onerror?.(error as Error);
        void this.close();
        return;
      }
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.#readBuffer.readMessage();
        } catch (error) {
          this.onerror?.(error as Error);
          continue;
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
    proc.stdout.on('error', (error) => this.onerror?.(error));
    void proc.exited.then((info) => {
      this.#exitInfo = info;
      this.#fireClose();
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#process?.stdin;
    if (!stdin || stdin.destroyed || this.#exitInfo) {
      throw new SdkError(SdkErrorCode.NotConnected, 'Not connected');
    }
    await new Promise<void>((resolve, reject) => {
      stdin.write(serializeMessage(message), (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Stops the whole process group (SIGTERM, then SIGKILL) and resolves when it is gone. */
  async close(): Promise<void> {
    const proc = this.#process;
    if (proc) {
      proc.stdin.end();
      await proc.terminate();
      this.#exitInfo ??= await proc.exited;
    }
    this.#readBuffer.clear();
    this.#fireClose();
  }

  #fireClose(): void {
    if (this.#closedFired) return;
    this.#closedFired = true;
    this.onclose?.();
  }
}
