/**
 * The tool calls the page holds: one stretch of the daemon's audit trail, newest first,
 * under one filter, with no gap inside it. `reload` reads the newest page, `older` the page
 * below the oldest held, `newer` what came after the newest held (the live poll). An answer
 * to an earlier filter (changed meanwhile) is dropped. It imports nothing and touches no
 * DOM, so a test runs it in Node.
 */

/** What the view filters on (absent: all); names and values as `GET /v1/audit` takes them. */
export interface ToolCallsFilter {
  readonly connector?: string;
  readonly outcome?: string;
}

/** One page of `GET /v1/audit`: newest first; `nextBefore` when older records remain. */
export interface ToolCallsPage<R> {
  readonly records: readonly R[];
  readonly nextBefore?: number;
}

/** Reads one page for a query string (`connector`, `outcome`, `before`, `after`, `limit`). */
export type ToolCallsReader<R> = (query: URLSearchParams) => Promise<ToolCallsPage<R>>;

/** Records of a first page and of each "Load older". */
export const PAGE_SIZE = 100;
/** Most records one live read asks for; a full answer may hide a gap below it. */
export const NEWER_LIMIT = 500;
/** Most records held once live reads added to them; the oldest go first (Load older again). */
export const KEPT = 2000;

/** The records held for one filter, and how to read more of them. */
export class ToolCallsFeed<R extends { readonly seq: number }> {
  /** Newest first. */
  records: readonly R[] = [];
  /** `before` for the next older page; undefined when nothing older is left. */
  olderCursor: number | undefined;
  /** Whether a first page was read for the filter now. */
  loaded = false;
  filter: ToolCallsFilter = {};
  #generation = 0;
  /** The read under way, so that two reads of the same records never run at once. */
  #newer: Promise<number> | undefined;
  #older: Promise<number> | undefined;

  constructor(private readonly read: ToolCallsReader<R>) {}

  /** Forgets what is held and reads the newest page under `filter`. */
  async reload(filter: ToolCallsFilter = this.filter): Promise<void> {
    const generation = ++this.#generation;
    this.filter = filter;
    this.records = [];
    this.olderCursor = undefined;
    this.loaded = false;
    this.#newer = undefined;
    this.#older = undefined;
    const page = await this.read(this.#query({ limit: PAGE_SIZE }));
    if (generation !== this.#generation) return;
    this.records = [...page.records];
    this.olderCursor = page.nextBefore;
    this.loaded = true;
  }

  /** Adds the page below the oldest record held; how many records it added. */
  older(): Promise<number> {
    if (!this.#older) {
      const run: Promise<number> = this.#readOlder().finally(() => {
        if (this.#older === run) this.#older = undefined;
      });
      this.#older = run;
    }
    return this.#older;
  }

  /** Adds what came after the newest record held (a first page if none was read). */
  newer(): Promise<number> {
    if (!this.loaded) return this.reload().then(() => this.records.length);
    if (!this.#newer) {
      const run: Promise<number> = this.#readNewer().finally(() => {
        if (this.#newer === run) this.#newer = undefined;
      });
      this.#newer = run;
    }
    return this.#newer;
  }

  async #readOlder(): Promise<number> {
    const cursor = this.olderCursor;
    if (cursor === undefined) return 0;
    const generation = this.#generation;
    const page = await this.read(this.#query({ before: cursor, limit: PAGE_SIZE }));
    // A live read that dropped records below moved the cursor: this page would leave a hole.
    if (generation !== this.#generation || cursor !== this.olderCursor) return 0;
    this.records = [...this.records, ...page.records];
    this.olderCursor = page.nextBefore;
    return page.records.length;
  }

  async #readNewer(): Promise<number> {
    const generation = this.#generation;
    const newest = this.records[0]?.seq;
    const page = await this.read(
      this.#query({ ...(newest !== undefined && { after: newest }), limit: NEWER_LIMIT }),
    );
    if (generation !== this.#generation || !page.records.length) return 0;
    const last = page.records.at(-1) as R;
    if (page.records.length >= NEWER_LIMIT) {
      // More may lie between the newest held and this page: hold this page alone, and let
      // "Load older" read on below it, so the records held never have a hole.
      this.records = [...page.records];
      this.olderCursor = last.seq;
    } else {
      this.records = [...page.records, ...this.records];
      if (this.records.length > KEPT) {
        this.records = this.records.slice(0, KEPT);
        this.olderCursor = (this.records.at(-1) as R).seq;
      }
    }
    return page.records.length;
  }

  #query(page: { before?: number; after?: number; limit: number }): URLSearchParams {
    const query = new URLSearchParams();
    if (this.filter.connector) query.set('connector', this.filter.connector);
    if (this.filter.outcome) query.set('outcome', this.filter.outcome);
    if (page.before !== undefined) query.set('before', String(page.before));
    if (page.after !== undefined) query.set('after', String(page.after));
    query.set('limit', String(page.limit));
    return query;
  }
}
