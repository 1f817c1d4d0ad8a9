"""fs-race attacker: swap two names (a directory and a symlink) with renameat2(RENAME_EXCHANGE)
in a tight loop, so a walk by path sees one or the other at any moment. Prints 'racing' once the
first swap succeeded; stops by itself after the given number of seconds (a test ends it sooner)."""
import ctypes
import os
import sys
import time

AT_FDCWD = -100
RENAME_EXCHANGE = 2

libc = ctypes.CDLL(None, use_errno=True)
renameat2 = libc.renameat2
renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]

first, second, seconds = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2]), float(sys.argv[3])
if renameat2(AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE) != 0:
    print('renameat2 failed: errno', ctypes.get_errno(), flush=True)
    sys.exit(1)
print('racing', flush=True)
deadline = time.monotonic() + seconds
while time.monotonic() < deadline:
    for _ in range(1000):
        renameat2(AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE)
