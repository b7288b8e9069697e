/*
 * banned.h - functions the suite does not use (style.md rule 23); include
 * last (dft.h does, so every file that includes it gets the list). Use
 * snprintf, dft_buf, dft_parse_long instead.
 */
#ifndef DFT_BANNED_H
#define DFT_BANNED_H

#define DFT_BANNED(f) sorry_##f##_is_banned_in_dft

#undef strcpy
#define strcpy(a, b) DFT_BANNED(strcpy)
#undef strcat
#define strcat(a, b) DFT_BANNED(strcat)
#undef strncpy
#define strncpy(a, b, n) DFT_BANNED(strncpy)
#undef sprintf
#define sprintf(...) DFT_BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) DFT_BANNED(vsprintf)
#undef strtok
#define strtok(a, b) DFT_BANNED(strtok)
#undef atoi
#define atoi(a) DFT_BANNED(atoi)
#undef atol
#define atol(a) DFT_BANNED(atol)
#undef gets
#define gets(a) DFT_BANNED(gets)
#undef mktemp
#define mktemp(a) DFT_BANNED(mktemp)

#endif
