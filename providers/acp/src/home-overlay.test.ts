import { lstat, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { closeAll, scriptedHost } from '@tutti/test-kit/scripted-acp';
import { afterEach, describe, expect, it } from 'vitest';
import type { AcpAgentDescriptor } from './descriptors.js';

afterEach(closeAll);

const USER_CONFIG =
  '# the user config\nmodel: big\nskills:\n  external_dirs:\n    - ~/mine # mine\n';

/** An agent whose home copies its config.yaml and lists its skills folder in it. */
const OVERLAY: Partial<AcpAgentDescriptor> = {
  home: {
    env: 'AGENT_HOME',
    mode: 'replaces',
    user: ['$AGENT_USER'],
    link: [],
    keep: [],
    seed: {},
    copy: ['config.yaml'],
  },
  skills: {
    via: 'home',
    dir: 'tutti-skills',
    yamlList: { file: 'config.yaml', key: 'skills.external_dirs' },
  },
};

/** A scripted agent with the overlay, its user folder holding a config.yaml and a login. */
async function overlayAgent(http: 'true' | 'false', descriptor = OVERLAY) {
  const agent = scriptedHost({ ACP_SCRIPT_HTTP: http }, { descriptor });
  // One connector skill in the connector's skill root.
  await mkdir(join(agent.dir, 'skills', 'notes'), { recursive: true });
  await writeFile(
    join(agent.dir, 'skills', 'notes', 'SKILL.md'),
    '---\nname: notes\ndescription: Notes.\n---\nTake notes.\n',
  );
  const user = join(agent.dir, 'user-folder');
  await mkdir(user);
  await writeFile(join(user, 'config.yaml'), USER_CONFIG);
  await writeFile(join(user, 'auth.json'), '{"token":"x"}');
  const request = {
    ...agent.request,
    launch: { env: { ...agent.request.launch.env, AGENT_USER: user } },
  };
  const info = await agent.host.createSession(request);
  const [session] = (await readdir(agent.dir)).filter((name) => name.startsWith('tutti-scripted-'));
  return { info, user, home: join(agent.dir, session!, 'home') };
}

describe('the runtime-preparation overlay of a session home', () => {
  it("adds a bound session's skills folder to the copied config's YAML list, and leaves the user's file as it was", async () => {
    const { info, user, home } = await overlayAgent('true');
    expect(info).toMatchObject({ status: 'ready', connector: 'bound' });
    expect((await lstat(join(home, 'config.yaml'))).isFile()).toBe(true);
    expect(await readFile(join(home, 'config.yaml'), 'utf8')).toBe(
      `${USER_CONFIG}    - ${join(home, 'tutti-skills')}\n`,
    );
    expect(await readFile(join(user, 'config.yaml'), 'utf8')).toBe(USER_CONFIG);
    // The login stays linked, never copied.
    expect((await lstat(join(home, 'auth.json'))).isSymbolicLink()).toBe(true);
  });

  it('gives a plain session the copy as it is, with no skill roots merged', async () => {
    const { info, home } = await overlayAgent('false');
    expect(info).toMatchObject({ status: 'ready', connector: 'plain' });
    expect(await readFile(join(home, 'config.yaml'), 'utf8')).toBe(USER_CONFIG);
  });

  const START_READ: Partial<AcpAgentDescriptor> = {
    ...OVERLAY,
    skills: { ...(OVERLAY.skills as object), readAt: 'start' } as AcpAgentDescriptor['skills'],
  };

  it('links the skills and merges the list before a start-reading agent starts', async () => {
    const { info, home } = await overlayAgent('true', START_READ);
    expect(info).toMatchObject({ status: 'ready', connector: 'bound' });
    expect((await lstat(join(home, 'tutti-skills', 'notes'))).isSymbolicLink()).toBe(true);
    expect(await readFile(join(home, 'config.yaml'), 'utf8')).toContain(join(home, 'tutti-skills'));
  });

  it('takes the connector skills back when a start-read session turns out plain', async () => {
    const { info, home } = await overlayAgent('false', START_READ);
    expect(info).toMatchObject({ status: 'ready', connector: 'plain' });
    await expect(lstat(join(home, 'tutti-skills', 'notes'))).rejects.toThrow(/ENOENT/);
  });
});
