#!/usr/bin/env python3
"""The kernels of sm_90 cubins, for comparing the run-time semiring compiler's machine
code with the nvcc build's (docs/notes/runs/2026-11-28-jit-codegen-parity.md): per kernel
its registers (EIATTR_REGCOUNT of .nv.info), its instructions (.text bytes / 16) and a
hash of its code bytes (equal hashes: the same machine code). Takes plain cubins
(nvcc -cubin) and the JIT's disk cache files (GBJIT001 header, src/cuda/jit/compiler.cpp),
and needs no CUDA tools, so it runs where cuobjdump is missing.

  cubin_info.py FILE...     one line per kernel: file, registers, instructions, hash, name
"""
import hashlib
import struct
import subprocess
import sys


def cubin_bytes(path):
    data = open(path, 'rb').read()
    if data[:8] == b'GBJIT001':  # key '\0' names '\0' cubin
        payload = data[24:]
        return payload[payload.index(b'\0', payload.index(b'\0') + 1) + 1:]
    return data


def kernels(data):
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3A)
    secs = [struct.unpack_from('<IIQQQQIIQQ', data, shoff + i * shentsize) for i in range(shnum)]

    def string(tab, off):
        base = secs[tab][4] + off
        return data[base:data.index(b'\0', base)].decode()

    names = [string(shstrndx, s[0]) for s in secs]
    sym = next(i for i, s in enumerate(secs) if s[1] == 2)  # SHT_SYMTAB
    symbols = [string(secs[sym][6], struct.unpack_from('<I', data, secs[sym][4] + 24 * i)[0])
               for i in range(secs[sym][5] // 24)]
    regs = {}
    for s, n in zip(secs, names):
        if n != '.nv.info':
            continue
        p, end = s[4], s[4] + s[5]
        while p < end:
            fmt, attr = data[p], data[p + 1]
            if fmt != 4:  # only EIFMT_SVAL entries carry a size
                p += 4
                continue
            size, = struct.unpack_from('<H', data, p + 2)
            if attr == 0x2F:  # EIATTR_REGCOUNT: symbol index, registers
                index, count = struct.unpack_from('<II', data, p + 4)
                regs[symbols[index]] = count
            p += 4 + size
    out = {}
    for s, n in zip(secs, names):
        if n.startswith('.text.'):
            code = data[s[4]:s[4] + s[5]]
            out[n[6:]] = (regs.get(n[6:]), len(code) // 16, hashlib.sha1(code).hexdigest()[:10])
    return out


if __name__ == '__main__':
    for path in sys.argv[1:]:
        ks = kernels(cubin_bytes(path))
        shown = subprocess.run(['c++filt'], input='\n'.join(ks), capture_output=True, text=True).stdout.split('\n')
        for (name, (r, n, h)), d in zip(ks.items(), shown):
            print(f'{path}\t{r}\t{n}\t{h}\t{d}')
