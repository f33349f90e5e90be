/**
 * The seccomp filter of an isolated server (docs/sandbox.md#seccomp): a classic BPF program
 * bubblewrap installs (`--seccomp FD`) that answers EPERM to the system calls a connector
 * server has no use for and an attacker does: reading or changing other processes
 * (`ptrace`, `process_vm_*`), the kernel keyrings (`keyctl`, `add_key`, `request_key`),
 * kernel attack surface (`bpf`, `perf_event_open`, `userfaultfd`, modules, `kexec_*`),
 * mounts, and pushing input into a terminal (`ioctl` TIOCSTI and TIOCLINUX). A call of
 * another architecture's ABI (a 32-bit or x32 call on x86-64) is refused whole, as its
 * numbers differ. Everything else is allowed: this is a deny list, cheap to check, on top
 * of the namespaces and `no_new_privs`, not a replacement for them.
 */

/** Errno of a refused call. */
const EPERM = 1;

/** `AUDIT_ARCH_*` and the numbers of the refused calls, per Node architecture. */
interface SyscallTable {
  readonly audit: number;
  /** Calls at or above this number are another ABI (x32 on x86-64). */
  readonly abiLimit?: number;
  readonly ioctl: number;
  readonly denied: Readonly<Record<string, number>>;
}

/** `linux/audit.h`; syscall numbers from the kernel's tables (x86_64: syscall_64.tbl, arm64: unistd.h). */
const TABLES: Readonly<Record<string, SyscallTable>> = {
  x64: {
    audit: 0xc000003e,
    abiLimit: 0x40000000,
    ioctl: 16,
    denied: {
      ptrace: 101,
      process_vm_readv: 310,
      process_vm_writev: 311,
      keyctl: 250,
      add_key: 248,
      request_key: 249,
      bpf: 321,
      perf_event_open: 298,
      userfaultfd: 323,
      kexec_load: 246,
      kexec_file_load: 320,
      init_module: 175,
      finit_module: 313,
      delete_module: 176,
      mount: 165,
      umount2: 166,
      pivot_root: 155,
    },
  },
  arm64: {
    audit: 0xc00000b7,
    ioctl: 29,
    denied: {
      ptrace: 117,
      process_vm_readv: 270,
      process_vm_writev: 271,
      keyctl: 219,
      add_key: 217,
      request_key: 218,
      bpf: 280,
      perf_event_open: 241,
      userfaultfd: 282,
      kexec_load: 104,
      kexec_file_load: 294,
      init_module: 105,
      finit_module: 273,
      delete_module: 106,
      mount: 40,
      umount2: 39,
      pivot_root: 41,
    },
  },
};

/** `ioctl` requests refused: TIOCSTI (push a byte into a terminal's input), TIOCLINUX. */
const DENIED_IOCTLS = [0x5412, 0x541c];

/** The names of the refused calls, for docs and status. */
export const SECCOMP_DENIED_CALLS: readonly string[] = Object.freeze([
  ...Object.keys(TABLES.x64!.denied),
  'ioctl TIOCSTI',
  'ioctl TIOCLINUX',
]);

// BPF instruction classes and fields (linux/bpf_common.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
// Offsets in struct seccomp_data: nr, arch, instruction_pointer, args[6] (64-bit each).
const NR = 0;
const ARCH = 4;
/** The low 32 bits of args[1] (little-endian): an ioctl's request. */
const ARG1_LOW = 24;

/** One instruction: code, jump-if-true, jump-if-false, constant. */
type Instruction = readonly [code: number, jt: number, jf: number, k: number];

/**
 * The filter for `arch` (a `process.arch` value) as the bytes of a `struct sock_fprog`'s
 * instructions; undefined where no table is kept (the sandbox then runs without one).
 * @example const program = seccompProgram(process.arch);
 */
export function seccompProgram(arch: string = process.arch): Buffer | undefined {
  const table = TABLES[arch];
  if (!table || (arch !== 'x64' && arch !== 'arm64')) return undefined;
  const deny: Instruction = [RET_K, 0, 0, RET_ERRNO | EPERM];
  const denied = Object.values(table.denied);
  const program: Instruction[] = [
    [LD_W_ABS, 0, 0, ARCH],
    // Another architecture's calls: refused whole (skip the refusal when it matches).
    [JEQ_K, 1, 0, table.audit],
    deny,
    [LD_W_ABS, 0, 0, NR],
  ];
  if (table.abiLimit !== undefined) {
    program.push([JGE_K, 0, 1, table.abiLimit], deny);
  }
  // Each refused number jumps to the refusal right after the list; the end allows.
  denied.forEach((nr, index) => {
    program.push([JEQ_K, denied.length - index + 1, 0, nr]);
  });
  // Not refused by number: an ioctl goes on to its request, anything else is allowed.
  program.push([JEQ_K, 2, 0, table.ioctl]);
  program.push([RET_K, 0, 0, RET_ALLOW]);
  program.push(deny);
  program.push([LD_W_ABS, 0, 0, ARG1_LOW]);
  DENIED_IOCTLS.forEach((request, index) => {
    program.push([JEQ_K, DENIED_IOCTLS.length - index, 0, request]);
  });
  program.push([RET_K, 0, 0, RET_ALLOW]);
  program.push(deny);
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach(([code, jt, jf, k], index) => {
    bytes.writeUInt16LE(code, index * 8);
    bytes.writeUInt8(jt, index * 8 + 2);
    bytes.writeUInt8(jf, index * 8 + 3);
    bytes.writeUInt32LE(k >>> 0, index * 8 + 4);
  });
  return bytes;
}
