/**
 * The local addresses the kernel has a listening TCP socket on for a port, read from
 * `/proc/net/tcp` and `/proc/net/tcp6` (Linux): what is really bound, whatever the server
 * says about itself.
 */
import { readFileSync } from 'node:fs';

const LISTEN = '0A';

function ipv4(hex: string): string {
  // Little-endian 32-bit word: 0100007F is 127.0.0.1.
  const bytes = hex.match(/../g)!.map((pair) => Number.parseInt(pair, 16));
  return bytes.reverse().join('.');
}

function ipv6(hex: string): string {
  // Four little-endian 32-bit words; shown as 8 groups, zeros not compressed.
  const words = hex.match(/.{8}/g)!.map((word) => word.match(/../g)!.reverse().join(''));
  return words.join('').match(/.{4}/g)!.join(':');
}

/** Every local address with a socket in LISTEN state on `port` (IPv4 dotted, IPv6 full). */
export function listeningAddresses(port: number): string[] {
  const found: string[] = [];
  for (const [file, decode] of [
    ['/proc/net/tcp', ipv4],
    ['/proc/net/tcp6', ipv6],
  ] as const) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 4 || fields[3] !== LISTEN) continue;
      const [address, portHex] = fields[1]!.split(':');
      if (Number.parseInt(portHex!, 16) === port) found.push(decode(address!));
    }
  }
  return found.sort();
}
