/* Wine 8.0 lacks bcryptprimitives.dll, whose ProcessPrng Rust's std (1.78+) calls for random
   bytes: this stub answers from RtlGenRandom (advapi32's SystemFunction036). */
#include <windows.h>
BOOLEAN NTAPI SystemFunction036(PVOID buffer, ULONG length);
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
    while (len > 0) {
        ULONG chunk = len > 0x7fffffff ? 0x7fffffff : (ULONG)len;
        if (!SystemFunction036(data, chunk)) return FALSE;
        data += chunk; len -= chunk;
    }
    return TRUE;
}
