#ifndef UTIL_H
#define UTIL_H
int util_add(int a, int b);
const char *util_version(void);
#endif
