/** What every action of the page does around its work: says it, says how it ended, refreshes. */
import { ApiError } from './api';

/** Runs an action, saying what it does and how it ended, then refreshes the page. */
export async function act(
  host: { say(message: string, isError?: boolean): void; refresh(): void },
  doing: string,
  run: () => Promise<string>,
): Promise<void> {
  host.say(`${doing}…`);
  try {
    host.say(await run());
  } catch (error) {
    host.say(error instanceof ApiError ? `${error.code}: ${error.message}` : String(error), true);
  } finally {
    host.refresh();
  }
}
