#include "util.h"
#include "version.h"

int util_add(int a, int b) { return a + b; }
const char *util_version(void) { return DEMO_VERSION; }
