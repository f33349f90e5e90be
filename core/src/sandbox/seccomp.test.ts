/**
 * The seccomp program, run by a small interpreter of the classic BPF instructions it uses
 * (load word, jump if equal or greater, return) against the `seccomp_data` of a call: the
 * refused calls answer EPERM, everything else is allowed, another ABI is refused whole.
 * That the kernel takes the program is shown by the probe connector (`Seccomp: 2` in
 * test/daemon/sandbox-isolation.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { SECCOMP_DENIED_CALLS, seccompProgram } from './seccomp.js';

const ALLOW = 0x7fff0000;
const EPERM = 0x00050001;
const X64 = 0xc000003e;
const ARM64 = 0xc00000b7;

/** Runs `program` on a call; returns what the filter answers. */
function evaluate(program: Buffer, call: { nr: number; arch: number; args?: number[] }): number {
  const data = Buffer.alloc(64);
  data.writeInt32LE(call.nr, 0);
  data.writeUInt32LE(call.arch, 4);
  for (const [i, arg] of (call.args ?? []).entries()) data.writeUInt32LE(arg >>> 0, 16 + i * 8);
  let a = 0;
  for (let pc = 0, steps = 0; pc * 8 < program.length && steps < 1000; pc++, steps++) {
    const code = program.readUInt16LE(pc * 8);
    const jt = program.readUInt8(pc * 8 + 2);
    const jf = program.readUInt8(pc * 8 + 3);
    const k = program.readUInt32LE(pc * 8 + 4);
    if (code === 0x20) a = data.readUInt32LE(k);
    else if (code === 0x15) pc += a === k ? jt : jf;
    else if (code === 0x35) pc += a >= k ? jt : jf;
    else if (code === 0x06) return k;
    else throw new Error(`unknown instruction ${code.toString(16)}`);
  }
  throw new Error('the program ran off its end');
}

describe('the seccomp program', () => {
  const x64 = seccompProgram('x64')!;
  const arm64 = seccompProgram('arm64')!;

  it('refuses with EPERM each call it lists on x86-64, and allows the calls a server makes', () => {
    for (const nr of [101, 310, 311, 250, 248, 249, 321, 298, 323, 246, 320, 175, 313, 176, 165]) {
      expect(evaluate(x64, { nr, arch: X64 })).toBe(EPERM);
    }
    // read, write, openat, clone, clone3, execve, socket, connect, mmap, unshare.
    for (const nr of [0, 1, 257, 56, 435, 59, 41, 42, 9, 272]) {
      expect(evaluate(x64, { nr, arch: X64 })).toBe(ALLOW);
    }
  });

  it('refuses the ioctls that push input into a terminal, and allows the others', () => {
    expect(evaluate(x64, { nr: 16, arch: X64, args: [0, 0x5412] })).toBe(EPERM);
    expect(evaluate(x64, { nr: 16, arch: X64, args: [0, 0x541c] })).toBe(EPERM);
    // TCGETS, FIONREAD: what a runtime asks of its pipes and terminals.
    expect(evaluate(x64, { nr: 16, arch: X64, args: [0, 0x5401] })).toBe(ALLOW);
    expect(evaluate(x64, { nr: 16, arch: X64, args: [0, 0x541b] })).toBe(ALLOW);
    expect(evaluate(arm64, { nr: 29, arch: ARM64, args: [0, 0x5412] })).toBe(EPERM);
    expect(evaluate(arm64, { nr: 29, arch: ARM64, args: [0, 0x5401] })).toBe(ALLOW);
  });

  it('refuses another ABI whole: an x32 call, a call of another architecture', () => {
    expect(evaluate(x64, { nr: 0x40000000 + 1, arch: X64 })).toBe(EPERM);
    expect(evaluate(x64, { nr: 1, arch: 0x40000003 })).toBe(EPERM);
    expect(evaluate(arm64, { nr: 1, arch: X64 })).toBe(EPERM);
  });

  it('uses the arm64 numbers on arm64', () => {
    for (const nr of [117, 270, 271, 219, 217, 218, 280, 241, 282, 104, 294, 105, 273, 106, 40]) {
      expect(evaluate(arm64, { nr, arch: ARM64 })).toBe(EPERM);
    }
    // read (63), write (64), openat (56), clone (220), ptrace's x86-64 number (101).
    for (const nr of [63, 64, 56, 220, 101]) {
      expect(evaluate(arm64, { nr, arch: ARM64 })).toBe(ALLOW);
    }
  });

  it('has no program for an architecture it keeps no table of, and names what it refuses', () => {
    expect(seccompProgram('ia32')).toBeUndefined();
    expect(seccompProgram('riscv64')).toBeUndefined();
    expect(SECCOMP_DENIED_CALLS).toContain('ptrace');
    expect(SECCOMP_DENIED_CALLS).toContain('ioctl TIOCSTI');
  });
});
