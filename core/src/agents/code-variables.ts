/**
 * Environment variables that make a program, or a program it runs, load or run code it was
 * not started with: a preload, a module or library path, startup options, a command run for
 * it (git's hooks and helpers, an editor, a pager, a shell). Data (an agent descriptor, a
 * signed extension's entry) never sets one: it sets switches only.
 */
const CODE_VARIABLES = new RegExp(
  [
    'PATH',
    'SHELL',
    'ENV',
    'BASH_ENV',
    'ZDOTDIR',
    'EDITOR',
    'VISUAL',
    'PAGER',
    'BROWSER',
    'PROMPT_COMMAND',
    'NODE_OPTIONS',
    'NODE_PATH',
    'NODE_EXTRA_CA_CERTS',
    'PYTHON\\w*',
    'PERL5OPT',
    'PERL5LIB',
    'PERLLIB',
    'RUBYOPT',
    'RUBYLIB',
    'JAVA_TOOL_OPTIONS',
    '_JAVA_OPTIONS',
    'JDK_JAVA_OPTIONS',
    'CLASSPATH',
    'GCONV_PATH',
    'LD_\\w*',
    'DYLD_\\w*',
    'GIT_\\w*',
    'SSH_ASKPASS',
    'SUDO_ASKPASS',
    'NPM_CONFIG_\\w*',
    'UV_\\w*',
    'PIP_\\w*',
  ]
    .map((name) => `(?:${name})`)
    .join('|')
    .replace(/^/, '^(?:')
    .concat(')$'),
  'i',
);

/** True when `name` is a variable data may not set (see the file's comment). */
export function variableLoadsCode(name: string): boolean {
  return CODE_VARIABLES.test(name);
}
