/* Prints each argument it gets, one per line between brackets, as the C runtime split the
   command line CreateProcess was given. `tree MARK`: starts itself as `sleep MARK`, prints the
   child's pid, then sleeps; `sleep MARK`: sleeps. (Windows test's helper.) */
#include <stdio.h>
#include <string.h>
#include <windows.h>
int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "tree") == 0) {
        STARTUPINFOA si = {sizeof si};
        PROCESS_INFORMATION pi;
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "\"%s\" sleep %s", argv[0], argv[2]);
        if (!CreateProcessA(NULL, cmd, NULL, NULL, FALSE, 0, NULL, NULL, &si, &pi)) return 2;
        printf("started %lu\n", (unsigned long)pi.dwProcessId);
        fflush(stdout);
    }
    if (argc == 3 && (strcmp(argv[1], "tree") == 0 || strcmp(argv[1], "sleep") == 0)) {
        Sleep(INFINITE);
    }
    for (int i = 1; i < argc; i++) printf("[%s]\n", argv[i]);
    return 0;
}
