import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openLogFile } from './log-file.js';

const temps: string[] = [];
async function tempLogs(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tutti-log-file-'));
  temps.push(dir);
  return join(dir, 'logs');
}

afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

const line = (n: number) => `${JSON.stringify({ n, pad: 'x'.repeat(80) })}\n`;
const mode = async (path: string) => (await stat(path)).mode & 0o777;

describe('the log file', () => {
  it('makes its folder 0700 and its file 0600 on the first line, not before', async () => {
    const logs = await tempLogs();
    const file = openLogFile({ path: join(logs, 'tuttid.log') });
    await expect(stat(logs)).rejects.toThrow();
    file.write(line(1));
    file.close();
    expect(await mode(logs)).toBe(0o700);
    expect(await mode(join(logs, 'tuttid.log'))).toBe(0o600);
    expect(await readFile(join(logs, 'tuttid.log'), 'utf8')).toBe(line(1));
  });

  it('makes a file and folder left readable by others private again, and appends to it', async () => {
    const logs = await tempLogs();
    await mkdir(logs, { mode: 0o755 });
    await chmod(logs, 0o755);
    await writeFile(join(logs, 'tuttid.log'), line(0), { mode: 0o644 });
    const file = openLogFile({ path: join(logs, 'tuttid.log') });
    file.write(line(1));
    file.close();
    expect(await mode(logs)).toBe(0o700);
    expect(await mode(join(logs, 'tuttid.log'))).toBe(0o600);
    expect(await readFile(join(logs, 'tuttid.log'), 'utf8')).toBe(line(0) + line(1));
  });

  it('rotates at its size into .1 ... .N, keeps N files besides the current one, all 0600', async () => {
    const logs = await tempLogs();
    const path = join(logs, 'tuttid.log');
    const size = Buffer.byteLength(line(10));
    // Three lines fit in one file; 20 lines make 7 files, of which 3 are kept beside it.
    const file = openLogFile({ path, maxBytes: size * 3, maxFiles: 3 });
    for (let n = 10; n < 30; n++) file.write(line(n));
    file.close();
    expect((await readdir(logs)).sort()).toEqual([
      'tuttid.log',
      'tuttid.log.1',
      'tuttid.log.2',
      'tuttid.log.3',
    ]);
    const numbers = async (name: string) =>
      (await readFile(join(logs, name), 'utf8'))
        .trim()
        .split('\n')
        .map((text) => (JSON.parse(text) as { n: number }).n);
    expect(await numbers('tuttid.log')).toEqual([28, 29]);
    expect(await numbers('tuttid.log.1')).toEqual([25, 26, 27]);
    expect(await numbers('tuttid.log.3')).toEqual([19, 20, 21]);
    for (const name of await readdir(logs)) expect(await mode(join(logs, name))).toBe(0o600);
    for (const name of await readdir(logs)) {
      expect((await stat(join(logs, name))).size).toBeLessThanOrEqual(size * 3);
    }
  });

  it('counts what an earlier daemon left in the file toward its size', async () => {
    const logs = await tempLogs();
    const path = join(logs, 'tuttid.log');
    const size = Buffer.byteLength(line(1));
    await mkdir(logs, { recursive: true });
    await writeFile(path, line(1) + line(2));
    const file = openLogFile({ path, maxBytes: size * 2, maxFiles: 1 });
    file.write(line(3));
    file.close();
    expect(await readFile(`${path}.1`, 'utf8')).toBe(line(1) + line(2));
    expect(await readFile(path, 'utf8')).toBe(line(3));
  });

  it('keeps no rotated file with a count of 0', async () => {
    const logs = await tempLogs();
    const path = join(logs, 'tuttid.log');
    const file = openLogFile({ path, maxBytes: 10, maxFiles: 0 });
    for (let n = 0; n < 3; n++) file.write(line(n));
    file.close();
    expect(await readdir(logs)).toEqual(['tuttid.log']);
    expect(await readFile(path, 'utf8')).toBe(line(2));
  });

  it('says once that it cannot write, and then writes nothing', async () => {
    const logs = await tempLogs();
    await writeFile(logs, 'a file where the folder should be');
    const errors: string[] = [];
    const file = openLogFile({
      path: join(logs, 'tuttid.log'),
      onError: (error) => errors.push(error.code ?? ''),
    });
    file.write(line(1));
    file.write(line(2));
    file.close();
    expect(errors).toEqual(['EEXIST']);
  });
});
