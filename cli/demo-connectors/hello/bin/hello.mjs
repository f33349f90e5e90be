#!/usr/bin/env node
// The `hello` demo connector's CLI, published to agents as `tutti-connector-hello`.
// Plain Node, no dependencies. Its subcommands make the shim's forwarding visible:
// arguments (greet), stdin and stdout (cat), stderr and exit codes (exit).
import { parseArgs } from 'node:util';

const HELP = `Usage: hello <command> [options]

Commands:
  greet [name...] [--shout]   Print a greeting (default name: world)
  cat                         Copy standard input to standard output
  exit <code> [message]       Print message to stderr and exit with code
  help                        Show this help
`;

const [command = 'help', ...rest] = process.argv.slice(2);

switch (command) {
  case 'greet': {
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: { shout: { type: 'boolean', default: false } },
    });
    const text = `Hello, ${positionals.join(' ') || 'world'}!`;
    process.stdout.write(`${values.shout ? text.toUpperCase() : text}\n`);
    break;
  }
  case 'cat':
    process.stdin.pipe(process.stdout);
    break;
  case 'exit': {
    const code = Number(rest[0] ?? 0);
    if (!Number.isInteger(code) || code < 0 || code > 255) {
      process.stderr.write('hello exit: the code must be an integer from 0 to 255\n');
      process.exit(2);
    }
    if (rest.length > 1) process.stderr.write(`${rest.slice(1).join(' ')}\n`);
    process.exit(code);
    break;
  }
  case 'help':
  case '--help':
  case '-h':
    process.stdout.write(HELP);
    break;
  default:
    process.stderr.write(`hello: unknown command "${command}"\n\n${HELP}`);
    process.exit(2);
}
